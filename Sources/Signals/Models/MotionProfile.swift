/// How a device moves, as the acceleration that motion adds to gravity, in g, in the device's
/// frame (z up out of the screen, so a phone lying flat reads z ≈ -1 g).
///
/// A profile is made once per device, drawing that device's traits (step rate, phase, amplitude)
/// from `traits`, then asked once per sample, in order. A profile that keeps state between
/// samples (a vehicle's speed, say) is a final class, which lets the stateless ones stay plain
/// structs called without exclusivity checks. Per-sample randomness comes from `random`, the
/// sample's own stream.
protocol MotionProfile {
    init(traits: inout Xoshiro256StarStar)
    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double>
    /// Whether the acceleration depends on earlier samples (see `SampledModel.dependsOnHistory`).
    var dependsOnHistory: Bool { get }
}

extension MotionProfile {
    var dependsOnHistory: Bool { true }
}

/// The motion profiles a scenario may name. Adding one is a case here, its line in `profileType`
/// and a file with its `MotionProfile`.
public enum Motion: String, Sendable, CaseIterable {
    /// Resting on a table: gravity, bias and sensor noise only.
    case still
    /// Carried by someone walking: steps at about 2 Hz.
    case walking

    var profileType: any MotionProfile.Type {
        switch self {
        case .still: StillMotion.self
        case .walking: WalkingMotion.self
        }
    }
}
