/// A generator's per-device form: the value of one field at a publish.
///
/// Values must be a pure function of the instant and of what was fixed when the generator was
/// made (seeds, shared models), so that a run replays byte for byte. Anything that evolves sample
/// by sample lives in a `SampledModel`, which `DeviceSignals` advances before asking for values.
package protocol FieldGenerator {
    func value(at instant: PublishInstant) -> SignalValue
}
