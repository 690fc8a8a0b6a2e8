/// A phone carried by someone running: footfalls at 2.5–3 Hz with a vertical bounce whose peaks
/// reach about 1 g, shaped by the second and third harmonics (a landing is sharper than a sine), a
/// fore-aft surge at the step rate and a lateral sway at half of it. Each runner has their own
/// cadence, strength, stride shape and phase.
struct RunningMotion: MotionProfile {
    /// Steps per second.
    let stepRate: Double
    let phase: Double
    let vertical: Double
    /// Weights and phases of the second and third harmonics of the bounce, relative to the first.
    let second: Double
    let secondPhase: Double
    let third: Double
    let thirdPhase: Double
    let forward: Double
    let lateral: Double

    init(traits: inout Xoshiro256StarStar, sampleInterval: Double?) {
        stepRate = 2.5 + 0.5 * traits.nextUnit()
        phase = 2 * Double.pi * traits.nextUnit()
        vertical = 0.55 + 0.15 * traits.nextUnit()
        second = 0.3 + 0.2 * traits.nextUnit()
        secondPhase = 2 * Double.pi * traits.nextUnit()
        third = 0.1 + 0.1 * traits.nextUnit()
        thirdPhase = 2 * Double.pi * traits.nextUnit()
        forward = 0.2 + 0.15 * traits.nextUnit()
        lateral = 0.08 + 0.08 * traits.nextUnit()
    }

    var dependsOnHistory: Bool { false }

    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double> {
        let angle = Cycle.angle(time * stepRate / 2)
        let step = 2 * angle + phase
        // Strides vary more than a walker's, and the body shudders a little on each landing.
        let (jitter, shudder) = random.nextGaussianPair()
        let bounce =
            Math.sine(step)
            + second * Math.sine(2 * step + secondPhase)
            + third * Math.sine(3 * step + thirdPhase)
        return SIMD3(
            lateral * Math.sine(angle + phase),
            forward * Math.cosine(step) + 0.03 * shudder,
            vertical * (1 + 0.08 * jitter) * bounce
        )
    }
}
