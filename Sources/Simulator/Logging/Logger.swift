import Glibc
import Synchronization

/// Lines to stderr, each written whole with one `write(2)` so lines from several threads never
/// interleave: timestamp, level, label, metadata, message (text), or one JSON object (json).
public struct Logger: Sendable {
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        case debug, info, warning, error

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var label: String
    public var format: Format
    public var minimumLevel: Level
    /// Where lines go; standard error unless a test wants them.
    public var sink: @Sendable (String) -> Void

    public init(
        label: String = "devsim", format: Format = .text, minimumLevel: Level = .info,
        sink: @escaping @Sendable (String) -> Void = Logger.standardError
    ) {
        self.label = label
        self.format = format
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    public func log(_ level: Level, _ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        guard level >= minimumLevel else { return }
        sink(line(level, message, metadata, time: WallTime.now()))
    }

    public func debug(_ message: String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.debug, message, metadata) }
    public func info(_ message: String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.info, message, metadata) }
    public func warning(_ message: String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.warning, message, metadata) }
    public func error(_ message: String, _ metadata: KeyValuePairs<String, String> = [:]) { log(.error, message, metadata) }

    func line(_ level: Level, _ message: String, _ metadata: KeyValuePairs<String, String>, time: WallTime) -> String {
        switch format {
        case .text:
            var line = "\(time.iso8601) \(level.name) \(label):"
            for (key, value) in metadata { line += " \(key)=\(value)" }
            return line + " \(message)\n"
        case .json:
            var line = "{\"ts\":\(JSONText.quoted(time.iso8601)),\"level\":\"\(level.name)\",\"label\":\(JSONText.quoted(label))"
            for (key, value) in metadata { line += ",\(JSONText.quoted(key)):\(JSONText.quoted(value))" }
            return line + ",\"msg\":\(JSONText.quoted(message))}\n"
        }
    }

    public static let standardError: @Sendable (String) -> Void = { line in
        write(line, toDescriptor: 2)
    }

    /// Writes all of `text` to a file descriptor with `write(2)`, retrying on EINTR.
    public static func write(_ text: String, toDescriptor descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }
}
