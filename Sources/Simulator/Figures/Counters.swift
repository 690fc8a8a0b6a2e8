import Signals
import Synchronization

/// One event loop's running figures. Written only by its loop thread, read by anyone: relaxed
/// atomics keep the publish path free of locks while the status line and the report read along.
///
/// Every tick lands in exactly one of `published`, `skippedOffline`, `droppedBuffer`,
/// `buffered` (a gauge: messages waiting in a connection's queue) or `failed`, so `scheduled`
/// is always their sum.
///
/// The `fault…` fields count the sensor faults that fired in the payloads the loop made (see
/// `FaultCounts`); they stand apart from the tick accounting.
public final class Counters: Sendable {
    public enum Field: Int, CaseIterable, Sendable {
        case scheduled, published, acknowledged, inFlight, skippedOffline, droppedBuffer, buffered
        case failed, late, reconnects, connectionsUp
        case faultSpike, faultStuck, faultDropout, faultDrift
    }

    private let scheduled = Atomic<Int>(0)
    private let published = Atomic<Int>(0)
    private let acknowledged = Atomic<Int>(0)
    private let inFlight = Atomic<Int>(0)
    private let skippedOffline = Atomic<Int>(0)
    private let droppedBuffer = Atomic<Int>(0)
    private let buffered = Atomic<Int>(0)
    private let failed = Atomic<Int>(0)
    private let late = Atomic<Int>(0)
    private let reconnects = Atomic<Int>(0)
    private let connectionsUp = Atomic<Int>(0)
    private let faultSpike = Atomic<Int>(0)
    private let faultStuck = Atomic<Int>(0)
    private let faultDropout = Atomic<Int>(0)
    private let faultDrift = Atomic<Int>(0)

    public init() {}

    /// Adds the faults that fired in one payload.
    public func add(faults: FaultCounts) {
        if faults.spike != 0 { add(.faultSpike, faults.spike) }
        if faults.stuck != 0 { add(.faultStuck, faults.stuck) }
        if faults.dropout != 0 { add(.faultDropout, faults.dropout) }
        if faults.drift != 0 { add(.faultDrift, faults.drift) }
    }

    /// The faults counted so far.
    public var faults: FaultCounts {
        FaultCounts(spike: self[.faultSpike], stuck: self[.faultStuck],
                    dropout: self[.faultDropout], drift: self[.faultDrift])
    }

    @inline(__always)
    public func add(_ field: Field, _ amount: Int = 1) {
        switch field {
        case .scheduled: scheduled.wrappingAdd(amount, ordering: .relaxed)
        case .published: published.wrappingAdd(amount, ordering: .relaxed)
        case .acknowledged: acknowledged.wrappingAdd(amount, ordering: .relaxed)
        case .inFlight: inFlight.wrappingAdd(amount, ordering: .relaxed)
        case .skippedOffline: skippedOffline.wrappingAdd(amount, ordering: .relaxed)
        case .droppedBuffer: droppedBuffer.wrappingAdd(amount, ordering: .relaxed)
        case .buffered: buffered.wrappingAdd(amount, ordering: .relaxed)
        case .failed: failed.wrappingAdd(amount, ordering: .relaxed)
        case .late: late.wrappingAdd(amount, ordering: .relaxed)
        case .reconnects: reconnects.wrappingAdd(amount, ordering: .relaxed)
        case .connectionsUp: connectionsUp.wrappingAdd(amount, ordering: .relaxed)
        case .faultSpike: faultSpike.wrappingAdd(amount, ordering: .relaxed)
        case .faultStuck: faultStuck.wrappingAdd(amount, ordering: .relaxed)
        case .faultDropout: faultDropout.wrappingAdd(amount, ordering: .relaxed)
        case .faultDrift: faultDrift.wrappingAdd(amount, ordering: .relaxed)
        }
    }

    public subscript(field: Field) -> Int {
        switch field {
        case .scheduled: scheduled.load(ordering: .relaxed)
        case .published: published.load(ordering: .relaxed)
        case .acknowledged: acknowledged.load(ordering: .relaxed)
        case .inFlight: inFlight.load(ordering: .relaxed)
        case .skippedOffline: skippedOffline.load(ordering: .relaxed)
        case .droppedBuffer: droppedBuffer.load(ordering: .relaxed)
        case .buffered: buffered.load(ordering: .relaxed)
        case .failed: failed.load(ordering: .relaxed)
        case .late: late.load(ordering: .relaxed)
        case .reconnects: reconnects.load(ordering: .relaxed)
        case .connectionsUp: connectionsUp.load(ordering: .relaxed)
        case .faultSpike: faultSpike.load(ordering: .relaxed)
        case .faultStuck: faultStuck.load(ordering: .relaxed)
        case .faultDropout: faultDropout.load(ordering: .relaxed)
        case .faultDrift: faultDrift.load(ordering: .relaxed)
        }
    }
}

/// The figures of every loop added up at one moment.
public struct Totals: Sendable, Equatable {
    public var scheduled = 0
    public var published = 0
    public var acknowledged = 0
    public var inFlight = 0
    public var skippedOffline = 0
    public var droppedBuffer = 0
    public var buffered = 0
    public var failed = 0
    public var late = 0
    public var reconnects = 0
    public var connectionsUp = 0
    /// Sensor faults that fired, over all loops.
    public var faults = FaultCounts()

    public init() {}

    public init(_ counters: [Counters]) {
        for c in counters {
            scheduled += c[.scheduled]
            published += c[.published]
            acknowledged += c[.acknowledged]
            inFlight += c[.inFlight]
            skippedOffline += c[.skippedOffline]
            droppedBuffer += c[.droppedBuffer]
            buffered += c[.buffered]
            failed += c[.failed]
            late += c[.late]
            reconnects += c[.reconnects]
            connectionsUp += c[.connectionsUp]
            faults += c.faults
        }
    }
}
