/// A phone carried by someone walking: a vertical bounce at the step rate (1.8–2.2 Hz, ±0.2–0.3 g),
/// a smaller fore-aft surge at the same rate, and a lateral sway at half of it, since the body
/// rocks once per stride of two steps. Each walker has their own cadence, strength and phase.
struct WalkingMotion: MotionProfile {
    /// Steps per second.
    let stepRate: Double
    let phase: Double
    let vertical: Double
    let forward: Double
    let lateral: Double

    init(traits: inout Xoshiro256StarStar, sampleInterval: Double?) {
        stepRate = 1.8 + 0.4 * traits.nextUnit()
        phase = 2 * Double.pi * traits.nextUnit()
        vertical = 0.2 + 0.1 * traits.nextUnit()
        forward = 0.08 + 0.06 * traits.nextUnit()
        lateral = 0.04 + 0.04 * traits.nextUnit()
    }

    var dependsOnHistory: Bool { false }

    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double> {
        let angle = Cycle.angle(time * stepRate / 2)
        let step = 2 * angle + phase
        // Footfalls are not perfectly regular: a little jitter keeps the wave from looking drawn.
        let jitter = 1 + 0.05 * random.nextGaussian()
        return SIMD3(
            lateral * Math.sine(angle + phase),
            forward * Math.cosine(step),
            vertical * jitter * Math.sine(step)
        )
    }
}
