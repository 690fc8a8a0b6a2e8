/// Where the fields of one device count the faults that fire. Touched only by the thread that
/// encodes the device's payloads, like the rest of `DeviceSignals`.
final class FaultTally {
    var counts = FaultCounts()
}

/// One field's faults on one device: the seeds they draw from and the state a stuck value keeps.
///
/// Every draw comes from a seed derived from the field's seed, the fault's name and the publish
/// index, so whether a fault fires at publish n does not depend on how many random numbers were
/// drawn before. A stuck episode carries state (when it ends, the frozen value), which is itself a
/// function of the earlier publishes, so the sequence still replays exactly.
final class FaultInjector {
    let faults: FieldFaults
    private let tally: FaultTally
    private let spikeSeed: Seed
    private let stuckSeed: Seed
    private let dropoutSeed: Seed

    /// The last value published, which a stuck episode freezes.
    private var last: Double?
    private var frozen = 0.0
    /// Device clock seconds at which the current stuck episode ends; `nil` when not stuck.
    private var stuckUntil: Double?

    init(faults: FieldFaults, fieldSeed: Seed, tally: FaultTally) {
        self.faults = faults
        self.tally = tally
        spikeSeed = fieldSeed.derive("fault/spike")
        stuckSeed = fieldSeed.derive("fault/stuck")
        dropoutSeed = fieldSeed.derive("fault/dropout")
    }

    /// Whether any fault changes numbers (all but dropout do).
    var modifiesNumbers: Bool {
        faults.spike != nil || faults.stuck != nil || faults.drift != nil
    }

    /// Decided before the value is made: `nil` when the field is written, otherwise how it drops
    /// out. Counts the dropout.
    func dropout(at instant: PublishInstant) -> FieldFaults.Dropout.Mode? {
        guard let dropout = faults.dropout, Self.fires(dropout.probability, dropoutSeed, instant.index) else {
            return nil
        }
        tally.counts.dropout += 1
        return dropout.mode
    }

    /// `value` with the numeric faults applied, counting those that fire.
    func apply(_ value: Double, at instant: PublishInstant) -> Double {
        if let until = stuckUntil {
            if instant.elapsed < until { return frozen }
            stuckUntil = nil
        }
        var result = value
        if let drift = faults.drift {
            result += drift.perHour * instant.elapsed / 3600
            tally.counts.drift += 1
        }
        if let stuck = faults.stuck, Self.fires(stuck.probability, stuckSeed, instant.index) {
            tally.counts.stuck += 1
            frozen = last ?? result
            last = frozen
            stuckUntil = instant.elapsed + stuck.duration
            return frozen
        }
        if let spike = faults.spike {
            var random = spikeSeed.derive(instant.index).generator()
            if random.nextUnit() < spike.probability {
                tally.counts.spike += 1
                result += random.next() & 1 == 0 ? spike.magnitude : -spike.magnitude
            }
        }
        last = result
        return result
    }

    private static func fires(_ probability: Double, _ seed: Seed, _ index: Int) -> Bool {
        guard probability > 0 else { return false }
        var random = seed.derive(index).generator()
        return random.nextUnit() < probability
    }
}
