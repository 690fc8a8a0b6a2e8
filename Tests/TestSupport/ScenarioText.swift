/// The text of a scenario of one device group, the shape most tests run, written as the tests
/// write it by hand: a `broker:` block, other top-level keys, then the group.
///
/// ```swift
/// ScenarioText(broker: ["ackTimeout: 500ms"], count: 2, topic: "ack/{index}", publish: "20/s", qos: 1).text
/// ```
/// is
/// ```yaml
/// broker:
///   ackTimeout: 500ms
/// devices:
///   - name: d
///     count: 2
///     topic: "ack/{index}"
///     publish: 20/s
///     qos: 1
///     payload: { fields: { seq: { counter: 0 } } }
/// ```
/// A key left `nil` or empty is not written, so the scenario's own default holds.
public struct ScenarioText: Sendable {
    /// The scenario's `name`.
    public var name: String?
    /// The entries of its `broker` block, a `key: value` each.
    public var broker: [String]
    /// Lines of other top-level keys (`offline:`, `stages:`), written before `devices:`.
    public var top: [String]
    /// The group's `name`.
    public var group: String
    public var count: Int?
    public var topic: String?
    public var publish: String
    public var qos: Int?
    /// The group's other entries (`jitter: none`, `availability: …`), a line each, before its payload.
    public var more: [String]
    /// The payload's `style`.
    public var style: String?
    /// The payload's fields, as the entries of a flow mapping.
    public var fields: String

    public init(
        name: String? = nil, broker: [String] = [], top: [String] = [], group: String = "d", count: Int? = nil, topic: String?,
        publish: String, qos: Int? = nil, more: [String] = [], style: String? = nil, fields: String = "seq: { counter: 0 }"
    ) {
        self.name = name
        self.broker = broker
        self.top = top
        self.group = group
        self.count = count
        self.topic = topic
        self.publish = publish
        self.qos = qos
        self.more = more
        self.style = style
        self.fields = fields
    }

    /// The scenario's YAML, without a newline at its end.
    public var text: String {
        var lines = name.map { ["name: \($0)"] } ?? []
        if !broker.isEmpty { lines += ["broker:"] + broker.map { "  " + $0 } }
        lines += top + ["devices:", "  - name: \(group)"]
        var entries = count.map { ["count: \($0)"] } ?? []
        entries += topic.map { ["topic: \"\($0)\""] } ?? []
        entries += ["publish: \(publish)"] + (qos.map { ["qos: \($0)"] } ?? []) + more
        entries += ["payload: { \(style.map { "style: \($0), " } ?? "")fields: { \(fields) } }"]
        return (lines + entries.map { "    " + $0 }).joined(separator: "\n")
    }

    /// Writes the text as `name` in a new temporary folder (``RunFiles/scenario(_:_:)``); returns
    /// the file's path.
    public func file(_ name: String) throws -> String {
        try RunFiles.scenario(name, text)
    }
}
