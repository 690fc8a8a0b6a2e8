/// One connection's Topic Aliases (MQTT 5, 3.3.2.3.4): the first PUBLISH on a topic carries the
/// topic and a new alias, the ones after the alias alone, up to the broker's Topic Alias
/// Maximum; a topic beyond it goes in full. Forgotten at every CONNACK, as the aliases of a
/// connection are. A pure state machine: the client carries out what it says.
package struct TopicAliases: Sendable {
    /// What a PUBLISH on a topic carries.
    package enum Use: Equatable, Sendable {
        /// The topic alone: no alias left, or none allowed.
        case topic
        /// The topic and the alias it is given from here on.
        case topicAndAlias(UInt16)
        /// The alias alone: the topic went with it before on this connection.
        case alias(UInt16)
    }

    private var aliases: [String: UInt16] = [:]
    package private(set) var maximum = 0

    package init() {}

    /// A CONNACK: the connection's aliases start anew, within its Topic Alias Maximum.
    package mutating func restart(maximum: Int) {
        aliases.removeAll(keepingCapacity: true)
        self.maximum = min(maximum, Int(UInt16.max))
    }

    /// How a PUBLISH on `topic` goes out, its alias made now if it needs one.
    package mutating func use(for topic: String) -> Use {
        if let alias = aliases[topic] { return .alias(alias) }
        guard aliases.count < maximum else { return .topic }
        let alias = UInt16(aliases.count + 1)
        aliases[topic] = alias
        return .topicAndAlias(alias)
    }
}
