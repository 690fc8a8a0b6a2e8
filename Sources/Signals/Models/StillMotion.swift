/// A device at rest: no acceleration beyond gravity.
struct StillMotion: MotionProfile {
    init(traits: inout Xoshiro256StarStar) {}

    var dependsOnHistory: Bool { false }

    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double> {
        .zero
    }
}
