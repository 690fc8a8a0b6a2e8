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

/// The motion profiles a scenario may name. Adding one is a case here, its lines in `MotionState`
/// and a file with its `MotionProfile`.
package enum Motion: String, Sendable, CaseIterable {
    /// Resting: gravity, bias and sensor noise only.
    case still
    /// Carried by someone walking: steps at about 2 Hz, ±0.2–0.3 g vertically.
    case walking
    /// Carried by someone running: steps at 2.5–3 Hz, peaks near 1 g, with harmonics.
    case running
    /// Shaken in a hand: 5–8 Hz, a couple of g, mostly side to side, noisy.
    case shaking
    /// Riding in a vehicle: road bumps at 0.5–3 Hz, an occasional pothole, engine vibration.
    case vehicle

}

/// One device's motion profile, made once. A closed set of concrete profiles rather than an
/// `any MotionProfile`: per sample, the switch is a jump and each profile's call is static, so the
/// hot path has no existential or generic dispatch.
enum MotionState {
    case still(StillMotion)
    case walking(WalkingMotion)
    case running(RunningMotion)
    case shaking(ShakingMotion)
    case vehicle(VehicleMotion)

    init(_ motion: Motion, traits: inout Xoshiro256StarStar, sampleInterval: Double?) {
        switch motion {
        case .still: self = .still(StillMotion(traits: &traits, sampleInterval: sampleInterval))
        case .walking: self = .walking(WalkingMotion(traits: &traits, sampleInterval: sampleInterval))
        case .running: self = .running(RunningMotion(traits: &traits, sampleInterval: sampleInterval))
        case .shaking: self = .shaking(ShakingMotion(traits: &traits, sampleInterval: sampleInterval))
        case .vehicle: self = .vehicle(VehicleMotion(traits: &traits, sampleInterval: sampleInterval))
        }
    }

    @inline(__always)
    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double> {
        switch self {
        case .still(let profile): profile.acceleration(at: time, random: &random)
        case .walking(let profile): profile.acceleration(at: time, random: &random)
        case .running(let profile): profile.acceleration(at: time, random: &random)
        case .shaking(let profile): profile.acceleration(at: time, random: &random)
        case .vehicle(let profile): profile.acceleration(at: time, random: &random)
        }
    }

    /// The profile itself, for what is asked once rather than per sample.
    var profile: any MotionProfile {
        switch self {
        case .still(let profile): profile
        case .walking(let profile): profile
        case .running(let profile): profile
        case .shaking(let profile): profile
        case .vehicle(let profile): profile
        }
    }
}

/// Angles for periodic motion that keep their precision over long runs.
enum Cycle {
    /// `2π` times the fractional part of `cycles`: the angle of a wave `cycles` periods in.
    /// Reducing to one period first keeps `sin` exact after days of running, when `2π f t` alone
    /// would have lost its low digits.
    @inline(__always)
    static func angle(_ cycles: Double) -> Double {
        2 * Double.pi * (cycles - cycles.rounded(.down))
    }
}
