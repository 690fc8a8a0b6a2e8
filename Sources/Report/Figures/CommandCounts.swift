/// What the commands to a group's devices came to (`commands:`): `{"received":n,"applied":n,
/// "rejected":n,"answered":n}`. Every message a device receives on its command topic is one
/// command: received once, then applied or rejected once, and answered once if any message of
/// its answer went out: the state published at once (on the device's topic, or a message a
/// field), the reply to a request (the state, or the rejection's reason), or both. So `answered`
/// never passes `received`. Answers are beside the schedule, counted here alone, not as ticks.
/// A topic several devices share reaches each of them (ThingsBoard's `v1/devices/me/…` on a
/// broker that is not ThingsBoard): each counts it.
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
