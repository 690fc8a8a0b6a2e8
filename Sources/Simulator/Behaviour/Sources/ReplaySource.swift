import Signals

/// A recording's messages (its group's `recording:`), each on its recorded topic with its
/// recorded retain flag, the device's id in place of the recorded one, and with
/// `timestamps: now` the time it is sent written where the recording had one. Its pacing is the
/// recording's times (`Pacing`), which say which message is due (`TickTime.index`).
final class ReplaySource: MessageSource {
    private let replay: ReplayPlan
    var topics: [String] { replay.topics }
    var retains: [Bool] { replay.retains }
    var keepsState: Bool { false }

    init(_ replay: ReplayPlan) {
        self.replay = replay
    }

    func writeTick(_ time: TickTime, into out: inout Outgoing) {
        let start = out.payload.count
        replay.write(time.index, wallClock: time.wallClock, into: &out.payload)
        out.add(slot: replay.messages[time.index].slot, from: start)
    }

    /// A recording says nothing beside its messages.
    func writeState(_ time: TickTime, into out: inout Outgoing) {}

    func take(_ assignments: [(field: String, value: CommandValue)], at elapsed: Double) throws(CommandRejection) {
        guard let first = assignments.first else { return }
        throw CommandRejection(
            "no field '\(first.field)': the device replays a recording", kind: "a command names a field the device does not have")
    }

    func describe(_ bytes: [UInt8]) -> String {
        String(validating: bytes, as: UTF8.self) ?? DeviceSignals.rawText(bytes)
    }
}
