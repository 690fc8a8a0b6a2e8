import Foundation
import Testing

/// The files of a test: scenarios (and what they name) written to fresh temporary folders, the
/// one writer of them for every test target, and the `--report` JSON devsim writes beside them.
public enum RunFiles {
    /// One device at 10/s, QoS 0, a counter: the scenario of tests about anything but it.
    public static let oneDevice = """
        devices:
          - name: d
            topic: t
            publish: 10/s
            payload: { fields: { n: { counter: 0 } } }
        """

    /// A new temporary folder.
    public static func folder() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A new temporary folder holding `files`: each text by its name, which may go through
    /// folders of its own (`parts/rooms.yaml`).
    public static func folder(with files: [String: String]) throws -> URL {
        let directory = try folder()
        for (name, contents) in files {
            let url = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: url, atomically: true, encoding: .utf8)
        }
        return directory
    }

    /// Writes `contents` as `name` in a new temporary folder; returns the file's path.
    public static func scenario(_ name: String, _ contents: String) throws -> String {
        try folder(with: [name: contents]).appendingPathComponent(name).path
    }

    /// Removes the folder `scenario(_:_:)` made for `file`, and all in it.
    public static func removeFolder(of file: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: file).deletingLastPathComponent())
    }

    /// The report at `path`, as JSON objects.
    public static func report(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Whether every tick of `report` is in exactly one place: `scheduled` is the sum of them.
    public static func accountsForEveryTick(_ report: [String: Any]) -> Bool {
        let parts = ["published", "skippedOffline", "droppedBuffer", "buffered", "failed"].map { report[$0] as? Int ?? -1 }
        return report["scheduled"] as? Int == parts.reduce(0, +) + (report["paused"] as? Int ?? 0) + (report["unchanged"] as? Int ?? 0)
    }
}
