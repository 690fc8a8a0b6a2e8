/// A field's commanded state: the value that replaces its generator's, or the setpoint its
/// centre moves toward. Confined, as the field is, to its device's loop.
struct CommandedState {
    /// `command: set`'s value.
    var value: SignalValue?
    /// `command: setpoint`: where the centre is going, how fast, and how far it has moved.
    var target: Double?
    var offset = 0.0
    /// The sample time the offset was last moved at; `nil` until the first publish after a
    /// setpoint, so the move is made in the device's own time, the same in every run.
    var movedAt: Double?

    /// The centre's offset at `time`, moved toward `target − centre` by at most `perSecond` per
    /// second since the last publish.
    mutating func offset(at time: Double, centre: Double, perSecond: Double) -> Double {
        guard let target else { return offset }
        let wanted = target - centre
        if let movedAt, time > movedAt {
            let step = perSecond * (time - movedAt)
            offset = abs(wanted - offset) <= step ? wanted : offset + (wanted > offset ? step : -step)
        }
        movedAt = time
        return offset
    }
}
