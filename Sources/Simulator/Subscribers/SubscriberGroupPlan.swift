import MQTT
import Report
import Scenario

/// One subscriber group of the run, resolved: its members' connections (those of this shard)
/// and the fleet's topics its filters catch, each with what `VerifyPlan` reads of its payloads.
package struct SubscriberGroupPlan: Sendable {
    package struct Member: Sendable {
        /// 1-based, as in the whole group, whichever shard runs it.
        package var index: Int
        package var options: ClientOptions
        /// Seconds after the subscribers' start at which the connection is opened (the ramp).
        package var startOffset: Double
    }

    /// A topic the fleet publishes on that the group's filters match.
    package struct WatchedTopic: Sendable {
        package var topic: String
        package var plan: VerifyPlan
        /// Devices publishing on it: with more than one, sequence numbers mix and are not judged.
        package var devices: Int
    }

    /// What a group's connections are made of, as its scenario says it: equal for a group that a
    /// reload leaves as it was (the run's settings, the rest of what its members' options come
    /// from, are the same for the reload). Not where the group is written, nor the broker's
    /// will and ack timeout, which a subscriber has none of.
    package struct Source: Sendable, Equatable {
        package var group: SubscriberGroup
        package var broker: BrokerSettings

        init(group: SubscriberGroup, broker: BrokerSettings) {
            self.group = group
            self.group.location = nil
            self.broker = broker
            self.broker.will = nil
            self.broker.ackTimeout = nil
            self.broker.onAckTimeout = nil
        }
    }

    package var name: String
    package var filters: [TopicFilter]
    package var qos: QoS
    package var isShared: Bool
    package var members: [Member]
    package var reconnect: ReconnectSettings
    package var topics: [WatchedTopic]
    /// What the group was made from, for a reload to tell whether it changed: compared, not the
    /// plan, whose members (a million of them, some runs) are made from it.
    package var source: Source

    /// The subscriber groups of every scenario, in order, with the members of `shard`: a group
    /// that receives the whole stream is dealt by its members' client ids, as devices are by
    /// their ids, so the shards together run the whole group; a shared group (`$share/…`) runs
    /// whole on the one shard its name hashes to (`Shard.runsSharedGroup(named:)`), and the
    /// others run none of its members, for a shared stream split over shards would be judged in
    /// parts, each part's missing the others' messages as gaps. Every shard plans every group,
    /// so its report lists it. `devices` are the whole fleet's, every shard's: a subscriber
    /// receives what the other shards publish too. Groups without `rampUp` open one after
    /// another at `Defaults.rampUp` a second together, apart from the devices' ramp: the
    /// subscribers are up before the devices start.
    static func plans(for scenarios: [Scenario], settings: RunSettings, shard: Shard?, devices: [DevicePlan]) -> [SubscriberGroupPlan] {
        guard scenarios.contains(where: { !$0.subscribers.isEmpty }) else { return [] }
        var published: [String: WatchedTopic] = [:]
        var order: [String] = []
        for device in devices {
            let fieldTopics = device.fieldTopics
            for topic in fieldTopics.isEmpty ? [device.topic] : fieldTopics {
                if published[topic] == nil {
                    published[topic] = WatchedTopic(topic: topic, plan: device.verify, devices: 0)
                    order.append(topic)
                }
                published[topic]!.devices += 1
            }
        }
        var plans: [SubscriberGroupPlan] = []
        var defaultRampPosition = 0
        for scenario in scenarios {
            var subscriberSlot = scenario.groups.reduce(0) { $0 + FleetPlan.connectionCount(of: $1) }
            for group in scenario.subscribers {
                defer { subscriberSlot += max(1, group.count) }
                let perSecond = group.rampUp?.perSecond ?? Defaults.rampUp
                let rampStart = group.rampUp == nil ? defaultRampPosition : 0
                if group.rampUp == nil { defaultRampPosition += group.count }
                let runsNone = group.isShared && shard.map { !$0.runsSharedGroup(named: group.name) } == true
                let members = (runsNone ? [] : Array(1...max(1, group.count))).compactMap { index -> Member? in
                    let clientID = group.clientID(index: index, version: FleetPlan.protocolVersion(of: scenario, settings: settings))
                    if let shard, !group.isShared, !shard.contains(deviceID: clientID) { return nil }
                    var options = FleetPlan.clientOptions(
                        scenario: scenario, settings: settings, clientID: clientID, group: group.name, index: index, id: clientID,
                        will: nil)
                    // After the devices' connections, in the order of the groups.
                    FleetPlan.place(&options, scenario: scenario, settings: settings, slot: subscriberSlot + index - 1, key: clientID)
                    options.cleanSession = group.cleanSession ?? options.cleanSession
                    // The group's own user, over the broker's and the command line's.
                    if let username = group.username, !settings.anonymous {
                        options.username = Template(username).render(name: group.name, index: index, id: clientID)
                        options.password = group.password.map { Template($0).render(name: group.name, index: index, id: clientID) }
                    }
                    options.reportsPublishes = false
                    return Member(
                        index: index, options: options,
                        startOffset: perSecond.isFinite ? Double(rampStart + index - 1) / perSecond : 0)
                }
                let topics = order.compactMap { topic in
                    group.topics.contains(where: { $0.matches(topic) }) ? published[topic] : nil
                }
                plans.append(
                    SubscriberGroupPlan(
                        name: group.name, filters: group.topics, qos: group.qos, isShared: group.isShared, members: members,
                        reconnect: scenario.broker.reconnect ?? ReconnectSettings(), topics: topics,
                        source: Source(group: group, broker: scenario.broker)))
            }
        }
        return plans
    }

    /// Shared subscriptions that two subscriber groups both make, one message for each pair of
    /// groups, at the place the second is written: the broker takes a `$share/NAME/FILTER` for
    /// one share whoever subscribes to it, and deals each message to one member of either group,
    /// so each group would count what went to the other as gaps. A run must not start with any.
    static func shareConflicts(in scenarios: [Scenario]) -> [Diagnostic] {
        var owners: [String: (group: String, location: SourceLocation)] = [:]
        var reported: Set<[String]> = []
        var conflicts: [Diagnostic] = []
        for scenario in scenarios {
            for group in scenario.subscribers {
                let location = group.location ?? SourceLocation(file: scenario.file, line: 1, column: 1)
                for filter in group.topics where filter.isShared {
                    guard let first = owners[filter.text] else {
                        owners[filter.text] = (group.name, location)
                        continue
                    }
                    guard first.location != location, reported.insert([first.location.description, location.description]).inserted
                    else { continue }
                    conflicts.append(
                        Diagnostic(
                            file: location.file, line: location.line, column: location.column,
                            message: "shared subscription '\(filter.text)' of subscriber group '\(group.name)' is also made by "
                                + "subscriber group '\(first.group)' at \(first.location); the broker makes them one share and "
                                + "deals each message to one member of either group, so each would count the other's as gaps: "
                                + "give the groups different share names"))
                }
            }
        }
        return conflicts
    }

    /// What the group's connections subscribe to, and at which QoS.
    package var subscriptions: [(key: String, value: QoS)] { filters.map { ($0.text, qos) } }
}
