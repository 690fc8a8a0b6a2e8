import MQTT

/// A message the broker delivered on a topic that none of a connection's subscriptions match,
/// against [MQTT-3.3.2-3]: what a broker that rewrites topics does (RabbitMQ 3.10 delivers
/// `spBv1.0/…` as `spBv1/0/…`, as it swaps '.' and '/' between MQTT topics and AMQP routing
/// keys). It is counted and said, not dropped in silence.
enum UnmatchedTopic {
    /// `nil` when one of `filters` matches `topic`; else what to say of it, naming the filter it
    /// was meant for where one matches once '.' and '/' are taken for one another.
    static func warning(topic: String, filters: [String]) -> String? {
        guard !filters.contains(where: { TopicFilter.filter($0, matches: topic) }) else { return nil }
        let separated = { (text: String) in text.replacingOccurrences(of: ".", with: "/") }
        if let meant = filters.first(where: { TopicFilter.filter(separated($0), matches: separated(topic)) }) {
            return "the broker rewrote the topic: got '\(topic)' for filter '\(meant)'"
        }
        let named =
            filters.prefix(3).map { "'\($0)'" }.joined(separator: ", ") + (filters.count > 3 ? " and \(filters.count - 3) more" : "")
        return "the broker delivered a message on '\(topic)', which none of the subscriptions (\(named)) match"
    }
}
