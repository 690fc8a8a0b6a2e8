import Signals

/// One payload a tick on the device's own topic, from its fields' generators: a JSON object
/// (`milkcocoa`, `flat`), a `template`'s text or `raw` bytes, padded to `payload.size` where the
/// group asks. The signals choose the encoding; the source says how a person reads the result.
final class PayloadSource: MessageSource {
    let signals: DeviceSignals
    let topics: [String] = []
    let retains: [Bool] = []
    /// How a payload reads in a line: raw bytes in hex, padding left out, or the text itself.
    private let describing: ([UInt8]) -> String

    init(signals: DeviceSignals) {
        self.signals = signals
        if signals.isRaw {
            describing = DeviceSignals.rawText
        } else if signals.keepsSize {
            describing = DeviceSignals.sizedText
        } else {
            describing = { String(decoding: $0, as: UTF8.self) }
        }
    }

    @inline(__always)
    func writeTick(_ time: TickTime, into out: inout Outgoing) {
        let start = out.payload.count
        signals.encode(elapsed: time.elapsed, wallClock: time.wallClock, into: &out.payload)
        out.add(slot: -1, from: start)
    }

    func writeState(_ time: TickTime, into out: inout Outgoing) {
        writeTick(time, into: &out)
    }

    func take(_ assignments: [(field: String, value: CommandValue)], at elapsed: Double) throws(CommandRejection) {
        try signals.take(assignments)
    }

    @inline(__always)
    func tally(into counters: Counters) {
        signals.tally(into: counters)
    }

    func describe(_ bytes: [UInt8]) -> String { describing(bytes) }
}

extension DeviceSignals {
    /// The faults that fired and the payloads over their size since the last call, into
    /// `counters`: after each payload made.
    @inline(__always)
    func tally(into counters: Counters) {
        if hasFaults { counters.add(faults: takeFaultCounts()) }
        if keepsSize { counters.add(.oversized, takeOversized()) }
    }
}
