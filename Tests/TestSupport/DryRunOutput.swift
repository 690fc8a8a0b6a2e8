import Foundation
import Testing

/// What `devsim run --dry-run` prints on standard output: a JSON object a line, one a message
/// (`topic`, `payload`, …).
public enum DryRunOutput {
    /// Each topic's payloads, in the order printed; a line that is not such an object fails the
    /// test at `sourceLocation`.
    public static func payloadsByTopic(
        _ stdout: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: [String]] {
        var payloads: [String: [String]] = [:]
        for line in stdout.split(separator: "\n") {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], sourceLocation: sourceLocation)
            let topic = try #require(object["topic"] as? String, sourceLocation: sourceLocation)
            payloads[topic, default: []].append(try #require(object["payload"] as? String, sourceLocation: sourceLocation))
        }
        return payloads
    }
}
