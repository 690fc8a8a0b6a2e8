import Foundation
import Testing

/// The files of a process test: a scenario written to a fresh temporary folder, and the
/// `--report` JSON devsim writes beside it.
enum RunFiles {
    /// One device at 10/s, QoS 0, a counter: the scenario of tests about anything but it.
    static let oneDevice = """
        devices:
          - name: d
            topic: t
            publish: 10/s
            payload: { fields: { n: { counter: 0 } } }
        """

    /// A new temporary folder.
    static func folder() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `contents` as `name` in a new temporary folder; returns the file's path.
    static func scenario(_ name: String, _ contents: String) throws -> String {
        let file = try folder().appendingPathComponent(name)
        try contents.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// Removes the folder `scenario(_:_:)` made for `file`, and all in it.
    static func removeFolder(of file: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: file).deletingLastPathComponent())
    }

    /// The report at `path`, as JSON objects.
    static func report(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Whether every tick of `report` is in exactly one place: `scheduled` is the sum of them.
    static func accountsForEveryTick(_ report: [String: Any]) -> Bool {
        let parts = ["published", "skippedOffline", "droppedBuffer", "buffered", "failed"].map { report[$0] as? Int ?? -1 }
        return report["scheduled"] as? Int == parts.reduce(0, +) + (report["paused"] as? Int ?? 0) + (report["unchanged"] as? Int ?? 0)
    }
}
