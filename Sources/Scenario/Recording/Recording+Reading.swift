import Foundation
import MQTT
import Signals

extension Recording {
    /// The keys a message's line may have.
    static let keys = ["t", "topic", "qos", "retain", "payload", "payloadBase64"]

    /// The recording at `path`, or every problem in it at its file, line and column.
    public static func load(path: String) throws(ScenarioError) -> Recording {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw ScenarioError([Diagnostic(file: path, line: 1, column: 1, message: "cannot read '\(path)': it is not a file")])
        }
        let bytes: [UInt8]
        do {
            bytes = try WholeFile.bytes(at: path)
        } catch {
            throw ScenarioError([Diagnostic(file: path, line: 1, column: 1, message: "cannot read '\(path)': \(error.reason)")])
        }
        return try parse(bytes, file: path)
    }

    /// The recording in `bytes`, read as the file `file`; the first 100 problems, and a count of
    /// the rest.
    public static func parse(_ bytes: [UInt8], file: String) throws(ScenarioError) -> Recording {
        var messages: [RecordedMessage] = []
        var problems: [Diagnostic] = []
        var lineNumber = 0
        var problemCount = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = line
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let first = line.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }),
                first != UInt8(ascii: "#")
            else { continue }
            do {
                messages.append(try message(Array(line), line: lineNumber))
            } catch {
                problemCount += 1
                if problems.count < 100 {
                    problems.append(Diagnostic(file: file, line: lineNumber, column: error.column, message: error.message))
                }
            }
        }
        if problemCount > problems.count, let last = problems.last {
            problems.append(
                Diagnostic(
                    file: file, line: last.line, column: 1,
                    message: "and \(problemCount - problems.count) more problems not listed"))
        }
        guard problems.isEmpty else { throw ScenarioError(problems) }
        guard !messages.isEmpty else {
            throw ScenarioError([
                Diagnostic(file: file, line: max(lineNumber, 1), column: 1, message: "the recording holds no message")
            ])
        }
        // Stable: messages a person wrote with the same time keep their order.
        let ordered = messages.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
        return Recording(messages: ordered.map(\.element))
    }

    /// A problem on one line, at its column (from 1).
    struct LineProblem: Error {
        var column: Int
        var message: String
    }

    /// The message on one line.
    private static func message(_ line: [UInt8], line lineNumber: Int) throws(LineProblem) -> RecordedMessage {
        // Devsim's own reader, not Foundation's: JSONSerialization takes a trailing comma.
        guard let (json, _) = RecordedJSON.read(line) else {
            let offset = RecordedJSON.errorOffset(line) ?? 0
            throw LineProblem(
                column: offset + 1,
                message: offset >= line.count ? "not valid JSON: the line ends before its object does" : "not valid JSON here")
        }
        guard case .object(let members) = json else {
            throw LineProblem(column: 1, message: "each line is one JSON object, {\"t\":…,\"topic\":…,\"payload\":…}")
        }
        let text = String(decoding: line, as: UTF8.self)
        func column(of key: String, last: Bool = false) -> Int {
            guard let range = text.range(of: "\"\(key)\"", options: last ? .backwards : []) else { return 1 }
            return text.utf8.distance(from: text.startIndex, to: range.lowerBound) + 1
        }
        func problem(_ key: String, _ message: String) -> LineProblem {
            LineProblem(column: column(of: key), message: message)
        }
        var fields: [String: RecordedJSON] = [:]
        for member in members {
            let key = member.key
            guard keys.contains(key) else {
                throw problem(
                    key, "unknown key '\(key)'\(Suggestion.hint(for: key, among: keys)) (a message has \(keys.joined(separator: ", ")))")
            }
            guard fields.updateValue(member.value, forKey: key) == nil else {
                throw LineProblem(column: column(of: key, last: true), message: "'\(key)' is given twice")
            }
        }
        guard let timeValue = fields["t"] else { throw LineProblem(column: 1, message: "'t' is required: the seconds from the start") }
        guard case .number(let time, _, _) = timeValue, time.isFinite, time >= 0 else {
            throw problem("t", "'t' is the seconds from the start of the recording, a number 0 or more")
        }
        guard case .string(let topic) = fields["topic"] else {
            throw fields["topic"] == nil
                ? LineProblem(column: 1, message: "'topic' is required") : problem("topic", "'topic' is a string")
        }
        guard !topic.isEmpty, !topic.contains("+"), !topic.contains("#"), !topic.utf8.contains(0) else {
            throw problem("topic", "'topic' is a topic name: not empty, without the wildcards '+' and '#'")
        }
        var qos = QoS.atMostOnce
        if let value = fields["qos"] {
            guard case .number(let level, _, integer: true) = value, let parsed = QoS(rawValue: Int32(exactly: level) ?? -1) else {
                throw problem("qos", "'qos' is 0, 1 or 2")
            }
            qos = parsed
        }
        var retain = false
        if let value = fields["retain"] {
            guard case .bool(let flag) = value else { throw problem("retain", "'retain' is true or false") }
            retain = flag
        }
        let payload: [UInt8]
        switch (fields["payload"], fields["payloadBase64"]) {
        case (let text?, nil):
            guard case .string(let text) = text else {
                throw problem("payload", "'payload' is the payload's text as a JSON string; a binary payload is 'payloadBase64'")
            }
            payload = Array(text.utf8)
        case (nil, let encoded?):
            guard case .string(let encoded) = encoded, let data = Data(base64Encoded: encoded) else {
                throw problem("payloadBase64", "'payloadBase64' is the payload's bytes in base64")
            }
            payload = Array(data)
        case (nil, nil):
            throw LineProblem(column: 1, message: "'payload' (text) or 'payloadBase64' (bytes) is required")
        case (_?, _?):
            throw problem("payloadBase64", "a message has 'payload' or 'payloadBase64', not both")
        }
        return RecordedMessage(time: time, topic: topic, qos: qos, retain: retain, payload: payload, line: lineNumber)
    }
}
