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
