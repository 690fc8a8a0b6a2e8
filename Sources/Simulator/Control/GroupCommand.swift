import Scenario

/// A change to a running device group, from `POST /api/groups/NAME/…` or the control topic.
public enum GroupCommand: Sendable, Equatable {
    /// The group's connections leave cleanly and its ticks count as `paused`.
    case pause
    /// The group connects again and publishes from its CONNACK on.
    case resume
    /// The group's devices tick this many times a second from now on.
    case rate(perSecond: Double)
    /// The group has this many devices from now on: the last ones leave, or new ones join with
    /// ids continuing the template.
    case scale(count: Int)

    public var name: String {
        switch self {
        case .pause: "pause"
        case .resume: "resume"
        case .rate: "rate"
        case .scale: "scale"
        }
    }

    public static let names = ["pause", "resume", "rate", "scale"]

    /// The most devices a `scale` may ask of one group.
    public static let maxCount = 1_000_000

    /// What a command may carry, as JSON: the HTTP request's body, or beside `group` and
    /// `command` in a control topic's message.
    public struct Arguments: Decodable, Sendable {
        /// For `rate`: "5/s", "600/min".
        public var publish: String?
        /// For `scale`: the group's new device count.
        public var count: Double?

        public init(publish: String? = nil, count: Double? = nil) {
            self.publish = publish
            self.count = count
        }
    }

    /// `command` with its arguments.
    public static func parse(_ command: String, _ arguments: Arguments) throws(GroupCommandError) -> GroupCommand {
        let (publish, count) = (arguments.publish, arguments.count)
        switch command {
        case "pause": return .pause
        case "resume": return .resume
        case "rate":
            guard let publish else { throw GroupCommandError("rate needs \"publish\", such as {\"publish\": \"5/s\"}") }
            let rate: Rate
            do {
                rate = try Rate.parse(publish)
            } catch {
                throw GroupCommandError("\"publish\": \(error)")
            }
            guard rate.perSecond.isFinite, rate.perSecond > 0 else {
                throw GroupCommandError("\"publish\": expected a rate above zero such as 5/s, not '\(publish)'")
            }
            return .rate(perSecond: rate.perSecond)
        case "scale":
            guard let count else { throw GroupCommandError("scale needs \"count\", such as {\"count\": 50}") }
            guard count == count.rounded(), count >= 1, count <= Double(maxCount) else {
                throw GroupCommandError(
                    "\"count\": expected a whole number of devices from 1 to \(maxCount) (pause a group to stop it), "
                        + "not \(count)")
            }
            return .scale(count: Int(count))
        default:
            throw GroupCommandError("unknown command '\(command)': expected pause, resume, rate or scale")
        }
    }
}

/// Why a group command cannot be carried out, in words.
public struct GroupCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// No such group: the HTTP endpoint answers 404, not 400.
    public var isUnknownGroup = false

    public init(_ message: String, isUnknownGroup: Bool = false) {
        self.message = message
        self.isUnknownGroup = isUnknownGroup
    }

    public var description: String { message }
}
