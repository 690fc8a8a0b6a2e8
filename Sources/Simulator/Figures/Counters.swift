import Mosquitto
import Report
import Signals
import Synchronization

/// One event loop's running figures. Written only by its loop thread, read by anyone: relaxed
/// atomics keep the publish path free of locks while the status line and the report read along.
///
/// A counter per `Figure`, and beside them the loop's connections up and the sensor faults that
/// fired in the payloads it made (see `FaultCounts`), which stand apart from the tick accounting.
/// `@unchecked Sendable` only for the pointers to its atomics, which the compiler cannot see
/// into: every field is an atomic.
public final class Counters: @unchecked Sendable {
    /// One atomic per `Figure`, by its raw value; allocated once, never resized.
    private let figures: UnsafeMutablePointer<Atomic<Int>>
    private let connectionsUp = Atomic<Int>(0)
    private let connectionsPaused = Atomic<Int>(0)
    private let faultSpike = Atomic<Int>(0)
    private let faultStuck = Atomic<Int>(0)
    private let faultDropout = Atomic<Int>(0)
    private let faultDrift = Atomic<Int>(0)
    private let commandsReceived = Atomic<Int>(0)
    private let commandsApplied = Atomic<Int>(0)
    private let commandsRejected = Atomic<Int>(0)
    private let commandsAnswered = Atomic<Int>(0)
    /// `refused` by reason: one atomic per reason code from 0x80 to 0xFF, by the code's offset.
    private let refusals: UnsafeMutablePointer<Atomic<Int>>
    private static let refusalCodes = 128

    public init() {
        figures = .allocate(capacity: Figure.allCases.count)
        for index in Figure.allCases.indices { (figures + index).initialize(to: Atomic(0)) }
        refusals = .allocate(capacity: Self.refusalCodes)
        for index in 0..<Self.refusalCodes { (refusals + index).initialize(to: Atomic(0)) }
    }

    deinit {
        figures.deinitialize(count: Figure.allCases.count)
        figures.deallocate()
        refusals.deinitialize(count: Self.refusalCodes)
        refusals.deallocate()
    }

    /// The broker refused a QoS 1/2 message for `reason` (0x80 or more): `refused`, by reason.
    package func refuse(_ reason: ReasonCode) {
        add(.refused)
        refusals[Int(reason.rawValue & 0x7F)].wrappingAdd(1, ordering: .relaxed)
    }

    /// The refusals so far, by reason.
    package var refusedByReason: Refusals {
        var result = Refusals()
        for index in 0..<Self.refusalCodes { result.add(UInt8(0x80 + index), refusals[index].load(ordering: .relaxed)) }
        return result
    }

    @inline(__always)
    public func add(_ figure: Figure, _ amount: Int = 1) {
        figures[figure.rawValue].wrappingAdd(amount, ordering: .relaxed)
    }

    public subscript(figure: Figure) -> Int {
        figures[figure.rawValue].load(ordering: .relaxed)
    }

    /// Every figure as of now.
    public var values: Figures {
        var values = Figures()
        for figure in Figure.allCases { values[figure] = self[figure] }
        return values
    }

    /// A connection of the loop came up (+1) or went down (-1).
    public func connections(up change: Int) {
        connectionsUp.wrappingAdd(change, ordering: .relaxed)
    }

    /// The loop's connections up now.
    package var connectionsUpNow: Int { connectionsUp.load(ordering: .relaxed) }

    /// A connection of the loop was paused by request (+1) or resumed (-1).
    package func connections(paused change: Int) {
        connectionsPaused.wrappingAdd(change, ordering: .relaxed)
    }

    package var connectionsPausedNow: Int { connectionsPaused.load(ordering: .relaxed) }

    /// Adds the faults that fired in one payload.
    package func add(faults: FaultCounts) {
        if faults.spike != 0 { faultSpike.wrappingAdd(faults.spike, ordering: .relaxed) }
        if faults.stuck != 0 { faultStuck.wrappingAdd(faults.stuck, ordering: .relaxed) }
        if faults.dropout != 0 { faultDropout.wrappingAdd(faults.dropout, ordering: .relaxed) }
        if faults.drift != 0 { faultDrift.wrappingAdd(faults.drift, ordering: .relaxed) }
    }

    /// A message arrived on a command topic.
    package func commandReceived() { commandsReceived.wrappingAdd(1, ordering: .relaxed) }
    /// It changed the device as asked, or changed nothing, for a reason logged once.
    package func commandDone(applied: Bool) {
        if applied {
            commandsApplied.wrappingAdd(1, ordering: .relaxed)
        } else {
            commandsRejected.wrappingAdd(1, ordering: .relaxed)
        }
    }
    /// The state (or a request's reply) was published at once after it.
    package func commandAnswered() { commandsAnswered.wrappingAdd(1, ordering: .relaxed) }

    package var commands: CommandCounts {
        var counts = CommandCounts()
        counts.received = commandsReceived.load(ordering: .relaxed)
        counts.applied = commandsApplied.load(ordering: .relaxed)
        counts.rejected = commandsRejected.load(ordering: .relaxed)
        counts.answered = commandsAnswered.load(ordering: .relaxed)
        return counts
    }

    /// The faults counted so far.
    package var faults: FaultCounts {
        FaultCounts(
            spike: faultSpike.load(ordering: .relaxed), stuck: faultStuck.load(ordering: .relaxed),
            dropout: faultDropout.load(ordering: .relaxed), drift: faultDrift.load(ordering: .relaxed))
    }
}
