/// A device at rest: no acceleration beyond gravity.
struct StillMotion: MotionProfile {
    init(traits: inout Xoshiro256StarStar, sampleInterval: Double?) {}

    var dependsOnHistory: Bool { false }

    @inline(__always)
    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double> {
        .zero
    }
}
