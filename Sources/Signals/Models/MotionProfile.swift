/// How a device moves, as the acceleration that motion adds to gravity, in g, in the *body* frame
/// of whoever or whatever carries the device: x to the right, y forward (the way they walk or
/// drive), z up. `AccelerometerModel` turns it into the device's own frame by the device's
/// orientation, so a walker's bounce lands on z for a phone lying flat in the hand and on y for
/// one held upright.
///
/// A profile is made once per device, drawing that device's traits (step rate, phase, amplitude)
/// from `traits`, then asked once per sample. Per-sample randomness comes from `random`, the
/// sample's own stream. Profiles are plain structs held in `MotionState`, so the per-sample call
/// is a jump and a static, inlinable call rather than a dynamic dispatch. A profile that must
/// carry state from sample to sample says so in `dependsOnHistory`; the ones here are all
/// functions of time and the sample's stream.
///
/// Adding a profile: a file with its struct, a case in `Motion`, and its lines in `MotionState`.
protocol MotionProfile {
    /// - Parameter sampleInterval: seconds between samples, `nil` when the device samples once per
    ///   publish at no fixed rate. A profile leaves out what the rate cannot carry (anything at or
    ///   above half the sample rate would alias into a false low frequency).
    init(traits: inout Xoshiro256StarStar, sampleInterval: Double?)
    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double>
    /// Whether the acceleration depends on earlier samples (see `SampledModel.dependsOnHistory`).
    var dependsOnHistory: Bool { get }
}

extension MotionProfile {
    /// The safe answer; a profile that is a function of time and the sample's stream says `false`.
    var dependsOnHistory: Bool { true }
}
