import MQTT

extension ScenarioReader {
    /// The `subscribers:` list: groups of connections that subscribe and count what arrives.
    func subscribers(_ node: Node) -> [SubscriberGroup] {
        guard case .sequence(let items) = node.kind else {
            report(
                node.mark,
                "expected a list of subscriber groups such as [{ name: dashboards, topics: [\"fleet/#\"] }] for 'subscribers', "
                    + "found \(node.summary)")
            return []
        }
        if items.isEmpty {
            report(node.mark, "expected at least one subscriber group in 'subscribers', found an empty list; or leave it out")
        }
        var seen: [String: Mark] = [:]
        var groups: [SubscriberGroup] = []
        for item in items {
            guard let group = subscriberGroup(item) else { continue }
            // Their figures are reported by name, and merged by name across shards.
            if let first = seen[group.name] {
                report(item.mark, "subscriber group name '\(group.name)' is already used at line \(first.line); names must differ")
                continue
            }
            seen[group.name] = item.mark
            groups.append(group)
        }
        return groups
    }

    private func subscriberGroup(_ node: Node) -> SubscriberGroup? {
        let problemsBefore = diagnostics.count
        guard let entries = entries(node, of: "a subscriber group", known: ScenarioKeys.subscriber.keys) else { return nil }
        var name = string(entries["name"], "name")
        if let nameNode = entries["name"], name?.isEmpty == true {
            report(nameNode.mark, "expected a non-empty name for 'name', found \(nameNode.summary)")
            name = nil
        }
        let what = name.map { "subscriber group '\($0)'" } ?? "a subscriber group"
        if entries["name"] == nil { missing("name", in: entries, of: what) }
        if entries["topics"] == nil {
            missing("topics", in: entries, of: "\(what) (the filters to subscribe to, such as [\"fleet/+/telemetry\"])")
        }
        let count = integer(entries["count"], "count", in: 1...Self.maximumCount)
        let clientID = template(entries["clientId"], "clientId", allowID: false)
        let topics = entries["topics"].map { subscriptionFilters($0, of: what) }
        let qos = qos(entries["qos"])
        let cleanSession = bool(entries["cleanSession"], "cleanSession")
        let rampUp = rate(entries["rampUp"], "rampUp")
        let username = template(entries["username"], "username")?.source
        let password = template(entries["password"], "password")?.source
        if let node = entries["password"], entries["username"] == nil {
            report(node.mark, "a subscriber group's 'password' goes with its 'username'; give both, or neither for the broker's")
        }
        guard let name, let topics, !topics.isEmpty, diagnostics.count == problemsBefore else { return nil }
        var group = SubscriberGroup(
            name: name, count: count ?? 1, clientID: clientID ?? SubscriberGroup.defaultClientID, topics: topics,
            qos: qos ?? .atMostOnce, cleanSession: cleanSession, rampUp: rampUp,
            location: SourceLocation(file: file, line: node.mark.line, column: node.mark.column))
        group.username = username
        group.password = password
        return group
    }

    /// `topics: ["fleet/+/telemetry", "alerts/#"]`, or one filter alone: every one a valid
    /// filter, and all shared subscriptions or none.
    private func subscriptionFilters(_ node: Node, of what: String) -> [TopicFilter] {
        let items: [Node]
        switch node.kind {
        case .scalar: items = [node]
        case .sequence(let list): items = list
        case .mapping:
            report(node.mark, "expected a list of topic filters such as [\"fleet/+/telemetry\"] for 'topics', found \(node.summary)")
            return []
        }
        if items.isEmpty {
            report(node.mark, "expected at least one topic filter in 'topics' of \(what), found an empty list")
            return []
        }
        var filters: [TopicFilter] = []
        for item in items {
            guard let text = string(item, "topics") else { continue }
            do {
                let filter = try TopicFilter(text)
                let hint = filter.isShared ? "" : Self.shareHint(text)
                guard hint.isEmpty else {
                    report(
                        item.mark,
                        "'\(text)' subscribes to topics under '\(text.prefix { $0 != "/" })', which is no shared subscription\(hint)")
                    continue
                }
                if let problem = Self.overlap(of: filter, with: filters, in: what) {
                    report(item.mark, problem)
                    continue
                }
                filters.append(filter)
            } catch {
                report(item.mark, "'\(text)' is not a topic filter: \(error.message)\(Self.shareHint(text))")
            }
        }
        if filters.contains(where: \.isShared), let plain = filters.first(where: { !$0.isShared }) {
            // Each message of a shared filter reaches one member, of a plain one every member: a
            // group of both could not say what it received twice.
            report(
                node.mark,
                "\(what) mixes shared subscriptions ($share/…) with '\(plain.text)', which every member receives whole: "
                    + "give it a subscriber group of its own")
            return []
        }
        return filters
    }

    /// Why `filter` cannot be beside `earlier` in one group, if it cannot: the broker sends a
    /// member a message once for each of its filters (each share of them, in a shared group)
    /// that matches its topic, and the copies would count as the group's `duplicates`.
    private static func overlap(of filter: TopicFilter, with earlier: [TopicFilter], in what: String) -> String? {
        if earlier.contains(where: { $0.text == filter.text }) {
            return "'\(filter.text)' is given twice in 'topics' of \(what); give it once"
        }
        for other in earlier {
            guard let topic = filter.commonTopic(with: other) else { continue }
            let copies = filter.isShared ? "both shares deal it to a member" : "each member receives it twice"
            return
                "'\(filter.text)' and '\(other.text)' of \(what) both match topics such as '\(topic)': \(copies), and the copy "
                + "counts among the group's duplicates; subscribe to each topic through one filter"
        }
        return nil
    }

    /// `; did you mean '$share/…'?` for a filter whose first level is a near miss of `$share`.
    private static func shareHint(_ text: String) -> String {
        guard text.hasPrefix("$"), let first = text.split(separator: "/", omittingEmptySubsequences: false).first,
            first != "$share", Suggestion.closest(to: String(first), among: ["$share"]) != nil
        else { return "" }
        return "; did you mean '$share/\(text.drop(while: { $0 != "/" }).dropFirst())'?"
    }
}
