import Scenario

/// A change to a running device group, from `POST /api/groups/NAME/…` or the control topic.
public enum GroupCommand: Sendable, Equatable {
    /// The group's connections leave cleanly and its ticks count as `paused`.
    case pause
    /// The group connects again and publishes from its CONNACK on.
    case resume
    /// The group's devices tick this many times a second from now on.
    case rate(perSecond: Double)

    public var name: String {
        switch self {
        case .pause: "pause"
        case .resume: "resume"
        case .rate: "rate"
        }
    }

    public static let names = ["pause", "resume", "rate"]

    /// `command` with its argument: `publish` (such as "5/s" or "600/min") for `rate`.
    public static func parse(_ command: String, publish: String?) throws(GroupCommandError) -> GroupCommand {
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
        default:
            throw GroupCommandError("unknown command '\(command)': expected pause, resume or rate")
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
