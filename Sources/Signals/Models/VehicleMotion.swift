/// A phone riding in a vehicle: the road's low-frequency bumps (three swells at 0.5–3 Hz, a few
/// hundredths of a g), a slow sway through bends and a slower surge of speeding up and braking, an
/// occasional pothole (a jolt of 0.15–0.35 g ringing at the suspension's 1.5–3 Hz for under a
/// second), road texture, and the engine's vibration at 20–30 Hz, tiny.
///
/// The engine is left out unless the sample rate is at least 2.5 times its frequency: sampled any
/// slower, a real sensor's anti-aliasing filter would remove it, and a model that kept it would
/// fold it into a false low frequency. Without a sample rate there is no engine.
///
/// Potholes are still a function of time alone: time is cut into slots of `slotLength` seconds,
/// and each slot's own stream (from the device's `potholeSeed` and the slot's number) decides
/// whether it holds a pothole, where, and how hard. A pothole lasts less than a slot, so a sample
/// needs to look only at its own slot and the one before.
struct VehicleMotion: MotionProfile {
    static let slotLength = 2.0
    static let potholeChance = 0.3

    /// Frequencies (Hz), amplitudes (g) and phases of the road's swells, on the vertical axis.
    let roadFrequency: SIMD3<Double>
    let roadAmplitude: SIMD3<Double>
    let roadPhase: SIMD3<Double>
    let swayFrequency: Double
    let sway: Double
    let surgeFrequency: Double
    let surge: Double
    let bodyPhase: Double
    let engineFrequency: Double
    /// Zero when the sample rate cannot carry the engine.
    let engine: Double
    let potholeSeed: Seed

    init(traits: inout Xoshiro256StarStar, sampleInterval: Double?) {
        roadFrequency = SIMD3(0.5 + 0.5 * traits.nextUnit(), 1 + traits.nextUnit(), 2 + traits.nextUnit())
        roadAmplitude = SIMD3(
            0.02 + 0.02 * traits.nextUnit(), 0.015 + 0.015 * traits.nextUnit(),
            0.01 + 0.01 * traits.nextUnit())
        roadPhase = SIMD3(traits.nextUnit(), traits.nextUnit(), traits.nextUnit()) * (2 * Double.pi)
        swayFrequency = 0.1 + 0.2 * traits.nextUnit()
        sway = 0.02 + 0.03 * traits.nextUnit()
        surgeFrequency = 0.02 + 0.04 * traits.nextUnit()
        surge = 0.03 + 0.05 * traits.nextUnit()
        bodyPhase = 2 * Double.pi * traits.nextUnit()
        let engineFrequency = 20 + 10 * traits.nextUnit()
        let engineAmplitude = 0.004 + 0.006 * traits.nextUnit()
        let carriesEngine = sampleInterval.map { 1 / $0 >= 2.5 * engineFrequency } ?? false
        self.engineFrequency = engineFrequency
        engine = carriesEngine ? engineAmplitude : 0
        potholeSeed = Seed(traits.next())
    }

    var dependsOnHistory: Bool { false }

    func acceleration(at time: Double, random: inout Xoshiro256StarStar) -> SIMD3<Double> {
        let swells =
            roadAmplitude.x * Math.sine(Cycle.angle(time * roadFrequency.x) + roadPhase.x)
            + roadAmplitude.y * Math.sine(Cycle.angle(time * roadFrequency.y) + roadPhase.y)
            + roadAmplitude.z * Math.sine(Cycle.angle(time * roadFrequency.z) + roadPhase.z)
        let slot = Int((time / Self.slotLength).rounded(.down))
        let jolt = pothole(slot: slot, at: time) + pothole(slot: slot - 1, at: time)
        let vibration = engine == 0 ? 0 : engine * Math.sine(Cycle.angle(time * engineFrequency) + bodyPhase)
        let (textureX, textureZ) = random.nextGaussianPair()
        return SIMD3(
            sway * Math.sine(Cycle.angle(time * swayFrequency) + bodyPhase) + 0.004 * textureX + 0.3 * vibration,
            surge * Math.sine(Cycle.angle(time * surgeFrequency) + roadPhase.x) + 0.3 * jolt + 0.5 * vibration,
            swells + jolt + 0.008 * textureZ + vibration
        )
    }

    /// The vertical jolt at `time` of the pothole in `slot`, if it holds one: a swing at the
    /// suspension's frequency under a raised-cosine envelope, so it starts and ends at zero.
    func pothole(slot: Int, at time: Double) -> Double {
        var random = potholeSeed.derive(slot).generator()
        guard random.nextUnit() < Self.potholeChance else { return 0 }
        let since = time - (Double(slot) + random.nextUnit()) * Self.slotLength
        let duration = 0.4 + 0.4 * random.nextUnit()
        guard since >= 0 && since < duration else { return 0 }
        let frequency = 1.5 + 1.5 * random.nextUnit()
        let strength = (0.15 + 0.2 * random.nextUnit()) * (random.nextUnit() < 0.5 ? -1 : 1)
        let envelope = 0.5 * (1 - Math.cosine(2 * Double.pi * since / duration))
        return strength * envelope * Math.sine(2 * Double.pi * frequency * since)
    }
}
