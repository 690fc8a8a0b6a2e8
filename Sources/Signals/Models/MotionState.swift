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
