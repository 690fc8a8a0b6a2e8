/// What `devsim sample` prints: a device's heading ending `→ TOPIC`, then a line a message,
/// `    +0.100s  PAYLOAD`, and what a role says beside the ticks on a topic of its own, with that
/// topic in brackets.
public enum SampleOutput {
    /// Each topic's payloads of the ticks, in the order printed; a role's lines left out.
    public static func payloadsByTopic(_ stdout: String) -> [String: [String]] {
        var sampled: [String: [String]] = [:]
        var topic = ""
        for line in stdout.split(separator: "\n") {
            if let arrow = line.range(of: " → ") {
                topic = String(line[arrow.upperBound...])
            } else if line.hasPrefix("    +"),
                let gap = line.range(of: "  ", range: line.index(line.startIndex, offsetBy: 4)..<line.endIndex),
                !line[gap.upperBound...].hasPrefix("[")
            {
                sampled[topic, default: []].append(String(line[gap.upperBound...]))
            }
        }
        return sampled
    }
}
