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

    /// A metadata value: text, or a number that a JSON line gives as a number, for tools that
    /// read the figures of a status line without parsing its words.
    public enum Value: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
        case string(String)
        case integer(Int)
        /// Written with at most `decimals` digits after the point.
        case number(Double, decimals: Int)

        public init(stringLiteral value: String) { self = .string(value) }

        public var description: String {
            switch self {
            case .string(let text): text
            case .integer(let value): "\(value)"
            case .number(let value, let decimals): JSONLiteral.number(value, decimals: decimals)
            }
        }

        var json: String {
            switch self {
            case .string(let text): JSONLiteral.quoted(text)
            case .integer(let value): "\(value)"
            case .number(let value, let decimals): JSONLiteral.number(value, decimals: decimals)
            }
        }
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

    public func log(_ level: Level, _ message: String, _ metadata: KeyValuePairs<String, Logger.Value> = [:]) {
        log(level, message, fields: Array(metadata))
    }

    /// `log` with metadata made at run time, in this order.
    public func log(_ level: Level, _ message: String, fields: [(key: String, value: Value)]) {
        guard level >= minimumLevel else { return }
        sink(line(level, message, fields, time: WallTime.now()))
    }

    public func debug(_ message: String, _ metadata: KeyValuePairs<String, Logger.Value> = [:]) { log(.debug, message, metadata) }
    public func info(_ message: String, _ metadata: KeyValuePairs<String, Logger.Value> = [:]) { log(.info, message, metadata) }
    public func warning(_ message: String, _ metadata: KeyValuePairs<String, Logger.Value> = [:]) { log(.warning, message, metadata) }
    public func error(_ message: String, _ metadata: KeyValuePairs<String, Logger.Value> = [:]) { log(.error, message, metadata) }

    func line(_ level: Level, _ message: String, _ metadata: [(key: String, value: Value)], time: WallTime) -> String {
        switch format {
        case .text:
            var line = "\(time.iso8601) \(level.name) \(label):"
            for (key, value) in metadata { line += " \(key)=\(value)" }
            return line + " \(message)\n"
        case .json:
            var line = "{\"ts\":\(JSONLiteral.quoted(time.iso8601)),\"level\":\"\(level.name)\",\"label\":\(JSONLiteral.quoted(label))"
            for (key, value) in metadata { line += ",\(JSONLiteral.quoted(key)):\(value.json)" }
            return line + ",\"msg\":\(JSONLiteral.quoted(message))}\n"
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
