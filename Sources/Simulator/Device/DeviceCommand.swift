import FoundationEssentials
import Report
import Scenario
import Signals

/// One command to a device, read from a message on its command topic: the fields to set, a new
/// rate, and whether it asks for the state; with the request id it is to be answered under.
///
/// A message is either a field's bare value on its own topic (`…/set/light` with `ON`), or a
/// JSON object: `{"light": true, "target": 22}`, with `"rate": "5/s"` and `"get": true` for the
/// device itself, or ThingsBoard's RPC, `{"method": "target", "params": 22}` (a method is a
/// field's name, `rate` or `get`).
package struct DeviceCommand: Sendable, Equatable {
    package var assignments: [(field: String, value: CommandValue)] = []
    /// Ticks a second from now on.
    package var perSecond: Double?
    package var asksForState = false
    package var requestID: String?

    package static func == (lhs: DeviceCommand, rhs: DeviceCommand) -> Bool {
        lhs.assignments.map(\.field) == rhs.assignments.map(\.field) && lhs.assignments.map(\.value) == rhs.assignments.map(\.value)
            && lhs.perSecond == rhs.perSecond && lhs.asksForState == rhs.asksForState && lhs.requestID == rhs.requestID
    }

    /// The names that are not fields: what a command asks of the device itself.
    static let rateKey = "rate"
    static let getKey = "get"

    /// The command a message on `topic` (which the plan's filter matched) carries, or why it
    /// carries none.
    package static func parse(topic: String, payload: [UInt8], plan: CommandPlan) throws(CommandRejection) -> DeviceCommand {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        var command = DeviceCommand()
        command.requestID = plan.requestLevel.flatMap { $0 < levels.count ? String(levels[$0]) : nil } ?? plan.requestID(inQueryOf: topic)
        let text = String(decoding: payload, as: UTF8.self)
        if plan.requestParameter != nil, let level = plan.fieldLevel, level < levels.count {
            // A direct method's payload is JSON: the value, or nothing for a method that only
            // asks (true, as a ThingsBoard RPC without params).
            let value = payload.isEmpty ? .bool(true) : (try? JSONDecoder().decode(Scalar.self, from: Data(payload)))?.value
            guard let value else {
                throw CommandRejection(
                    "a method's payload is a number, true, false or text in JSON, not '\(text.prefix(80))'",
                    kind: "a method's payload is no value")
            }
            try command.take(String(levels[level]), value)
            return command
        }
        if let level = plan.fieldLevel, level < levels.count {
            try command.take(String(levels[level]), CommandValue(bare: Text.trimmed(text)))
            return command
        }
        guard let object = try? JSONDecoder().decode([String: Scalar].self, from: Data(payload)) else {
            throw CommandRejection(
                "a command is a JSON object such as {\"field\": value} (or a bare value on a topic with {field}), not '\(text.prefix(80))'",
                kind: "a command is not JSON")
        }
        if case .text(let method)? = object["method"]?.value {
            try command.take(method, object["params"]?.value ?? .bool(true))
            return command
        }
        guard !object.isEmpty else { throw CommandRejection("an empty command names no field") }
        for key in object.keys.sorted() {
            guard let value = object[key]?.value else {
                throw CommandRejection(
                    "'\(key)' of a command takes a number, true, false or text, not an object or list",
                    kind: "a command value is an object or list")
            }
            try command.take(key, value)
        }
        return command
    }

    private mutating func take(_ name: String, _ value: CommandValue) throws(CommandRejection) {
        switch name {
        case Self.getKey:
            asksForState = true
        case Self.rateKey:
            var given: Double?
            switch value {
            case .number(let perSecond): given = perSecond
            case .text(let text): given = try? Rate.parse(text).perSecond
            case .bool: given = nil
            }
            guard let given, given.isFinite, given > 0 else {
                throw CommandRejection(
                    "'rate' is a rate above zero such as \"5/s\" (or a number a second), not \(value.words)",
                    kind: "a command's rate is no rate")
            }
            perSecond = given
        default:
            assignments.append((name, value))
        }
    }

    /// A JSON value a command may carry: a number, a boolean or text; nil for an object, a list
    /// or null.
    private struct Scalar: Decodable {
        let value: CommandValue?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) {
                value = .bool(bool)
            } else if let number = try? container.decode(Double.self) {
                value = .number(number)
            } else if let text = try? container.decode(String.self) {
                value = .text(text)
            } else {
                value = nil
            }
        }
    }
}

extension String {
    /// A response template with the request's id in place of `{requestId}`, and the answer's
    /// status in place of `{status}` (Azure's `$iothub/methods/res/{status}/?$rid=…`).
    func replacingRequestID(_ id: String, status: Int = 200) -> String {
        replacing("{requestId}", with: id).replacing("{status}", with: String(status))
    }
}
