/// A generator's per-device form: the value of one field at a publish.
///
/// Values must be a pure function of the instant and of what was fixed when the generator was
/// made (seeds, shared models), so that a run replays byte for byte. Anything that evolves sample
/// by sample lives in a `SampledModel`, which `DeviceSignals` advances before asking for values.
package protocol FieldGenerator {
    func value(at instant: PublishInstant) -> SignalValue
}

/// Per-device state that evolves one sensor sample at a time (the accelerometer's motion).
///
/// `DeviceSignals` calls `advance(to:)` once for each sample, in order of index. A model should
/// draw its randomness from a seed derived from the sample's index (`Seed.derive(_: Int)`), so
/// that a sample's noise does not depend on history.
package protocol SampledModel: AnyObject {
    func advance(to sample: SampleInstant)
    /// Whether a sample's value depends on the samples before it. When it does not, catching up
    /// can skip straight to the latest sample: at 10 Hz sampling and 1 Hz publishing that is a
    /// tenth of the work. Defaults to `true`, the safe answer.
    var dependsOnHistory: Bool { get }
}

extension SampledModel {
    package var dependsOnHistory: Bool { true }
}

/// A model that several fields of a device read (`GeneratorContext.sharedModel`).
package protocol SharedModel: SampledModel {
    /// The label its seed is derived from, with the key it is shared by: written out, never a
    /// type's name, so that renaming a type cannot change a single seeded value. A label, once
    /// shipped, stays as it is.
    static var seedLabel: String { get }
}
