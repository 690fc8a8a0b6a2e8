import Signals

/// A device of a Sparkplug edge node: each tick its DDATA, the metrics its reporting picks by
/// alias, or nothing kept back when it reports by exception and nothing changed. Its DBIRTH is
/// its edge node's to say (`SparkplugEdgeNodeRole`), and its seq the node's stamp
/// (`SparkplugSequencer`), which every message of the node takes as it goes out.
final class SparkplugDataSource: MessageSource {
    let signals: DeviceSignals
    let topics: [String] = []
    let retains: [Bool] = []
    var keepsState: Bool { false }
    var countsItsMessages: Bool { false }

    init(signals: DeviceSignals, firstAlias: UInt64, reporting: SparkplugReporting) {
        self.signals = signals
        signals.useSparkplug(firstAlias: firstAlias, reporting: reporting)
    }

    func writeTick(_ time: TickTime, into out: inout Outgoing) {
        let start = out.payload.count
        if signals.encodeSparkplugData(elapsed: time.elapsed, wallClock: time.wallClock, into: &out.payload) > 0 {
            out.add(slot: -1, from: start)
        } else {
            out.keptBack += 1
        }
    }

    /// Its DDATA beside its ticks (a DCMD's answer): nothing when its reporting picks no metric.
    func writeState(_ time: TickTime, into out: inout Outgoing) {
        let start = out.payload.count
        if signals.encodeSparkplugData(elapsed: time.elapsed, wallClock: time.wallClock, into: &out.payload) > 0 {
            out.add(slot: -1, from: start)
        }
    }

    /// Its DBIRTH: every metric, named, aliased and typed.
    func writeBirth(_ time: TickTime, into buffer: inout PayloadBuffer) {
        signals.encodeSparkplugBirth(elapsed: time.elapsed, wallClock: time.wallClock, into: &buffer)
    }

    func take(_ assignments: [(field: String, value: CommandValue)], at elapsed: Double) throws(CommandRejection) {
        try signals.take(assignments)
    }

    /// The datatype its last DBIRTH announced for `metric`: how a DCMD's integer is read.
    func birthType(of metric: SparkplugMetric) -> SparkplugDataType? {
        signals.sparkplugBirthType(of: metric)
    }

    func tally(into counters: Counters) {
        if signals.hasFaults { counters.add(faults: signals.takeFaultCounts()) }
    }

    func describe(_ bytes: [UInt8]) -> String { signals.sparkplugText(bytes) }
}
