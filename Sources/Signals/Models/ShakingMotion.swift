/// A phone shaken in a hand: a large oscillation at 5–8 Hz (1.5–2.5 g), mostly side to side with a
/// little spilling onto the other axes, its rate wandering as the hand tires and speeds up, and
/// plenty of noise. Each shaker has their own rate, strength, wander and phase.
struct ShakingMotion: MotionProfile {
    let frequency: Double
    let amplitude: Double
    let phase: Double
    /// What spills onto the forward and vertical axes, as fractions of the amplitude.
    let forward: Double
    let vertical: Double
    /// The rate wanders by a slow frequency modulation: `depth` radians at `wanderRate` Hz.
    let wanderRate: Double
    let depth: Double

    init(traits: inout Xoshiro256StarStar, sampleInterval: Double?) {
        frequency = 5 + 3 * traits.nextUnit()
        amplitude = 1.5 + traits.nextUnit()
        phase = 2 * Double.pi * traits.nextUnit()
        forward = 0.1 + 0.15 * traits.nextUnit()
        vertical = 0.1 + 0.15 * traits.nextUnit()
        wanderRate = 0.2 + 0.3 * traits.nextUnit()
        depth = 0.5 + traits.nextUnit()
    }

    var dependsOnHistory: Bool { false }

    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double> {
        let wander = depth * Math.sine(Cycle.angle(time * wanderRate))
        let angle = Cycle.angle(time * frequency) + phase + wander
        let (strength, noiseX) = random.nextGaussianPair()
        let (noiseY, noiseZ) = random.nextGaussianPair()
        let swing = amplitude * (1 + 0.1 * strength)
        return SIMD3(
            swing * Math.sine(angle) + 0.15 * noiseX,
            swing * forward * Math.sine(angle + 1.2) + 0.15 * noiseY,
            swing * vertical * Math.sine(angle + 2.1) + 0.15 * noiseZ
        )
    }
}
