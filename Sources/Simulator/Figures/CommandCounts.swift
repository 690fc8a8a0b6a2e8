/// What the commands to a group's devices came to (`commands:`): `{"received":n,"applied":n,
/// "rejected":n,"answered":n}`. Every message on a command topic is received once, then applied or
/// rejected once; an answer is the state published at once after it (or the reply to a request),
/// a message beside the schedule and counted here alone, not as a tick.
public struct CommandCounts: Codable, Sendable, Equatable {
    public var received = 0
    public var applied = 0
    public var rejected = 0
    public var answered = 0

    public init() {}

    package static func + (lhs: CommandCounts, rhs: CommandCounts) -> CommandCounts {
        var sum = lhs
        sum.received += rhs.received
        sum.applied += rhs.applied
        sum.rejected += rhs.rejected
        sum.answered += rhs.answered
        return sum
    }

    package var isEmpty: Bool { self == CommandCounts() }
}
