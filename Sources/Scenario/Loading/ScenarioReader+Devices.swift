import Signals

extension ScenarioReader {
    /// The `devices:` list, each group filled from `defaults`: required unless the file includes
    /// others, and not empty.
    func devices(_ node: Node?, in top: Entries, defaults: GroupKeys, required: Bool) -> [DeviceGroup] {
        guard let node else {
            if required { missing("devices", in: top, of: "the scenario (a list of device groups)") }
            return []
        }
        guard case .sequence(let items) = node.kind else {
            report(node.mark, "expected a list of device groups for 'devices', found \(node.summary)")
            return []
        }
        if items.isEmpty {
            report(node.mark, "expected at least one device group in 'devices', found an empty list")
        }
        return items.compactMap { group($0, defaults: defaults) }
    }

    /// `defaults:`: the keys of a device group, other than its name, for every group that does
    /// not set them.
    func defaults(_ node: Node) -> GroupKeys {
        if case .mapping(let pairs) = node.kind, let name = pairs.first(where: { $0.key.scalarText == "name" }) {
            report(name.key.mark, "'name' cannot be a default: each device group has a name of its own")
        }
        guard let entries = entries(node, of: "'defaults'", known: ScenarioKeys.group.keys) else { return GroupKeys() }
        return groupKeys(entries, of: "'defaults'")
    }

    private func group(_ node: Node, defaults: GroupKeys) -> DeviceGroup? {
        let problemsBefore = diagnostics.count
        guard let entries = entries(node, of: "a device group", known: ScenarioKeys.group.keys) else { return nil }
        var name = string(entries["name"], "name")
        if let nameNode = entries["name"], name?.isEmpty == true {
            report(nameNode.mark, "expected a non-empty name for 'name', found \(nameNode.summary)")
            name = nil
        }
        let what = name.map { "device group '\($0)'" } ?? "a device group"
        if entries["name"] == nil { missing("name", in: entries, of: what) }

        // Read every key before giving up on any, so that all problems are reported.
        var keys = groupKeys(entries, of: what).filled(from: defaults)
        // A recording (the group's, or from `defaults`) says what is sent and when: what
        // `defaults` gives of that is for the other groups, and the group's own is refused.
        let replays = entries["recording"] != nil || keys.recording != nil
        if replays {
            refuseBesideRecording(entries, of: what)
            keys.dropKeysBesideRecording()
        }
        // A Sparkplug group's topics are Sparkplug's.
        for key in ["topic", "publish", "payload"]
        where !replays && !keys.present.contains(key) && (key != "topic" || !keys.present.contains("sparkplug")) {
            missing(key, in: entries, of: what)
        }
        if let sample = keys.sample, let publish = keys.publish,
            sample.perSecond / publish.perSecond > Double(DeviceSignals.maximumCatchUpSamples)
        {
            // Models that carry state from sample to sample would skip samples past that bound,
            // and their values would depend on the publish rate.
            report(
                (entries["sample"] ?? node).mark,
                "\(what) samples more than \(DeviceSignals.maximumCatchUpSamples) "
                    + "times per publish; sample less often or publish more often")
        }
        if let payload = keys.payload {
            checkIntegrals(in: payload.fields, all: payload.fields, at: (entries["payload"] ?? node).mark)
            checkSetpoints(in: payload.fields, all: payload.fields, at: (entries["payload"] ?? node).mark)
        }
        if keys.payload?.style == .perField, keys.verify != nil {
            report(
                (entries["verify"] ?? node).mark,
                "\(what) publishes each field alone (style: perField): verify reads a sequence number out of each message, "
                    + "which a field alone does not carry")
        }
        if keys.payload?.style == .perField,
            let bad = keys.payload?.fields.first(where: { $0.name.contains(where: { "/+#".contains($0) }) })
        {
            report(
                (entries["payload"] ?? node).mark,
                "field '\(bad.name)' of \(what) names a topic level in the per-field style: a field's name there takes no '/', '+' or '#'")
        }
        if let verify = keys.verify, let payload = keys.payload, keys.sparkplug == nil, payload.style != .raw {
            checkVerifyFields(verify, in: payload, at: (entries["verify"] ?? node).mark)
        }
        if keys.availability != nil, case .shared = keys.connection {
            report(
                (entries["availability"] ?? entries["connection"] ?? node).mark,
                "\(what) has 'availability' and a shared connection: a connection has one will, so availability "
                    + "needs one connection per device")
        }
        // From `defaults`, a group with nothing to command simply listens for nothing.
        let commandsApply =
            keys.payload.map { Self.hasCommandedField($0.fields) } ?? false || keys.script?.hooks.contains("command") == true
        // A script that failed to load was said at its line: its hooks are not known.
        let scriptFailed = entries["script"] != nil && keys.script == nil
        if entries["commands"] != nil, !commandsApply, !scriptFailed {
            report(
                (entries["commands"] ?? node).mark,
                "\(what) has 'commands' but no field takes one, nor a script's command(): give the fields commands may set 'command: set' "
                    + "(or 'command: { setpoint: 1/min }')")
        }
        if let commands = keys.commands, commandsApply, case .shared = keys.connection,
            !commands.topic.placeholders.contains(where: { $0 == "id" || $0 == "index" })
        {
            report(
                (entries["commands"] ?? node).mark,
                "\(what) shares connections and its commands topic names no device: put {id} or {index} in it, so each "
                    + "device hears its own")
        }
        if keys.discovery != nil, keys.payload?.style == .template {
            report(
                (entries["discovery"] ?? node).mark,
                "\(what) has 'discovery' and a template payload: Home Assistant reads each value out of JSON, so discovery "
                    + "needs payload style milkcocoa or flat")
        }
        if let stages = keys.stages, !stages.isEmpty {
            let mark = (entries["stages"] ?? node).mark
            checkFollowing(
                stages, by: what, publishesAtMax: keys.publish.map { !$0.perSecond.isFinite } ?? false,
                hasLifecycle: keys.lifecycle != nil, at: mark)
            checkDeviceCounts(stages, of: what, count: keys.count ?? 1, at: mark)
        }
        if let properties = keys.properties, properties.topicAlias, let qos = keys.qos, qos.isAcknowledged {
            // libmosquitto keeps a QoS 1/2 PUBLISH as it was sent and sends it again after a
            // reconnect, where an alias of the connection before would be a protocol error.
            report(
                (entries["properties"] ?? entries["qos"] ?? node).mark,
                "\(what) has 'topicAlias: auto' and QoS \(qos.rawValue): topic aliases go with QoS 0 only, since a QoS 1/2 "
                    + "message resent after a reconnect must not name the alias of the connection before; use qos: 0, or remove "
                    + "'topicAlias'")
        }
        checkPayloadUse(keys, entries, at: node, of: what)
        if keys.script != nil { checkScript(keys, entries, at: node, of: what, replays: replays) }
        if let sparkplug = keys.sparkplug { checkSparkplug(sparkplug, keys, entries, at: node.mark, of: what, name: name) }
        let onChange = keys.payload.flatMap {
            $0.style == .raw ? nil : watching(keys, $0, at: (entries["onChange"] ?? entries["publish"] ?? node).mark, of: what)
        }
        if replays {
            guard let name, let recording = keys.recording, diagnostics.count == problemsBefore else { return nil }
            return replayingGroup(name, recording, keys, at: node)
        }
        guard let name, let topic = keys.topic ?? keys.sparkplug.map({ $0.dataTopic }), let publish = keys.publish,
            let payload = keys.payload,
            diagnostics.count == problemsBefore
        else { return nil }
        var group = DeviceGroup(
            name: name, count: keys.count ?? 1, id: keys.id ?? Template("{name}-{index}"),
            clientID: keys.clientID ?? Template("{id}"), topic: topic, sample: keys.sample,
            // Home Assistant subscribes to a discovered entity's state topic up to a second after
            // it made the entity: a state not retained is lost until the next.
            publish: publish, qos: keys.qos ?? .atMostOnce, retain: keys.retain ?? (keys.discovery != nil),
            connection: keys.connection ?? .perDevice, rampUp: keys.rampUp, payload: payload,
            jitter: keys.jitter, lifecycle: keys.lifecycle, stages: keys.stages ?? [],
            location: SourceLocation(file: file, line: node.mark.line, column: node.mark.column),
            verify: keys.verify, availability: keys.availability, discovery: keys.discovery,
            commands: commandsApply ? keys.commands : nil, onChange: onChange, sparkplug: keys.sparkplug)
        group.properties = keys.properties
        group.script = keys.script
        return group
    }

    /// A script works on the fields of a JSON, per-field or template payload: not on a recording,
    /// raw bytes, or a Sparkplug node's metrics.
    private func checkScript(_ keys: GroupKeys, _ entries: Entries, at node: Node, of what: String, replays: Bool) {
        let mark = (entries["script"] ?? node).mark
        if replays {
            report(mark, "\(what) replays a recording, which has no fields for a script to work on: remove 'script' or 'recording'")
        } else if keys.sparkplug != nil {
            report(mark, "\(what) is a Sparkplug B group: its script would have no say in the metrics' births; remove 'script'")
        } else if keys.payload?.style == .raw {
            report(mark, "\(what) sends raw bytes (payload style raw), which have no fields for a script to work on")
        }
    }

    /// Every group key `entries` holds, each checked, by `GroupKeys.table`; `what` names the
    /// mapping in messages.
    private func groupKeys(_ entries: Entries, of what: String) -> GroupKeys {
        var keys = GroupKeys()
        for key in GroupKeys.table {
            guard let node = entries[key.name] else { continue }
            keys.present.insert(key.name)
            key.read(self, node, what, &keys)
        }
        return keys
    }

    /// What a group's ticks watch, from `onChange:` or `publish: onChange`, its fields checked
    /// against the payload; `nil` for a group that sends every tick.
    private func watching(_ keys: GroupKeys, _ payload: PayloadSpec, at mark: Mark, of what: String) -> OnChange? {
        guard keys.onChange != nil || keys.publishesOnChange == true else { return nil }
        var watch = keys.onChange ?? OnChange(fields: [])
        let names = payload.fields.map(\.name)
        if watch.fields.isEmpty {
            // A state is a bool or text that holds; a uuid is new at every publish.
            watch.fields = payload.fields.filter { field in
                [.bool, .text].contains(field.generator?.valueKind) && !(field.generator is UUIDRecipe)
            }.map(\.name)
            guard !watch.fields.isEmpty else {
                report(
                    mark,
                    "\(what) publishes on change, but no field holds a state (a bool, text, a dwell): name the fields to watch in onChange: { fields: [...] }"
                )
                return nil
            }
        }
        for name in watch.fields where !names.contains(name) {
            report(mark, "onChange watches '\(name)', which is no field of \(what)'s payload")
            return nil
        }
        return watch
    }

    private static func hasCommandedField(_ fields: [FieldSpec]) -> Bool {
        fields.contains { $0.command != nil || $0.fields.map(hasCommandedField) == true }
    }

    /// The field each `integral` adds up must be a number of the same payload.
    private func checkIntegrals(in fields: [FieldSpec], all: [FieldSpec], at mark: Mark) {
        for field in fields {
            if let members = field.fields { checkIntegrals(in: members, all: all, at: mark) }
            guard let integral = field.generator as? IntegralRecipe else { continue }
            let source = Self.field(at: integral.source, in: all)
            // A total of itself, or of a total that adds up this one, grows without end.
            var seen: Set<String> = [field.name]
            var next = source
            while let recipe = next?.generator as? IntegralRecipe {
                guard seen.insert(recipe.source).inserted else {
                    report(
                        mark,
                        "field '\(field.name)' adds up 'of: \(integral.source)', which adds up '\(field.name)' in turn: a total cannot be of itself"
                    )
                    break
                }
                next = Self.field(at: recipe.source, in: all)
            }
            if integral.source == field.name {
                report(mark, "field '\(field.name)' adds up itself ('of: \(field.name)'): name the field it totals, such as power")
            } else if source == nil {
                report(mark, "field '\(field.name)' adds up 'of: \(integral.source)', which is no field of the payload")
            } else if source?.generator?.valueKind != .number {
                report(mark, "field '\(field.name)' adds up 'of: \(integral.source)', which is not a number")
            }
        }
    }

    /// The field each `setpoint` reports on must be one of the payload with a setpoint command.
    private func checkSetpoints(in fields: [FieldSpec], all: [FieldSpec], at mark: Mark) {
        for field in fields {
            if let members = field.fields { checkSetpoints(in: members, all: all, at: mark) }
            guard let recipe = field.generator as? SetpointRecipe else { continue }
            guard let source = Self.field(at: recipe.source, in: all) else {
                report(mark, "field '\(field.name)' reports the setpoint of 'of: \(recipe.source)', which is no field of the payload")
                continue
            }
            guard case .setpoint = source.command else {
                report(
                    mark,
                    "field '\(field.name)' reports the setpoint of 'of: \(recipe.source)', which has none: "
                        + "give that field command: { setpoint: 0.5/min }")
                continue
            }
        }
    }

    /// The field at a dotted path through the payload's groups.
    private static func field(at path: String, in fields: [FieldSpec]) -> FieldSpec? {
        var list = fields
        var found: FieldSpec?
        for name in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let field = list.first(where: { $0.name == name }) else { return nil }
            found = field
            list = field.fields ?? []
        }
        return found
    }

    /// The fields `verify` names must be in the payload: the sequence made by an integer
    /// `counter` that steps at every publish, the timestamp by a `timestamp` in s, ms, us or ns.
    private func checkVerifyFields(_ verify: VerifyFields, in payload: PayloadSpec, at mark: Mark) {
        let sequence = VerifyFields.field(named: verify.sequence, in: payload.fields)
        if sequence == nil {
            report(mark, "verify: the payload has no field '\(verify.sequence)' to read the sequence number from")
        } else if let counter = sequence?.generator as? CounterRecipe {
            // A shaped counter skips steps by design: the verifier would count each as lost.
            if counter.shape != nil {
                report(
                    mark, "verify: the sequence field '\(verify.sequence)' must be a counter without peakAt, which steps at every publish")
            }
        } else {
            report(mark, "verify: the sequence field '\(verify.sequence)' must be made by a 'counter'")
        }
        let timestamp = VerifyFields.field(named: verify.timestamp, in: payload.fields)
        if timestamp == nil {
            report(mark, "verify: the payload has no field '\(verify.timestamp)' to read the send time from")
        } else if let recipe = timestamp?.generator as? TimestampRecipe, recipe.unit != .iso8601 {
            // A number of seconds, milliseconds, microseconds or nanoseconds: readable.
        } else {
            report(mark, "verify: the timestamp field '\(verify.timestamp)' must be a 'timestamp' in s, ms, us or ns")
        }
    }
}
