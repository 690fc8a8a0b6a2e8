/// One device's 3-axis accelerometer, in g: gravity seen through the device's fixed tilt, a fixed
/// per-axis bias (a real sensor's calibration error), the motion profile's acceleration and
/// gaussian sensor noise. Every accelerometer field of a device reads the one model, so its axes
/// move together.
public final class AccelerometerModel: SampledModel {
    /// The latest sample.
    public private(set) var reading: SIMD3<Double>

    let gravity: SIMD3<Double>
    let bias: SIMD3<Double>
    let noise: Double
    let motion: any MotionProfile
    let sampleSeed: Seed

    /// - Parameters:
    ///   - gravity: magnitude of gravity, in g.
    ///   - noise: standard deviation of the sensor noise on each axis, in g.
    public init(seed: Seed, motion: Motion, gravity: Double = 1, noise: Double = 0.004) {
        var traits = seed.derive("traits").generator()
        // A phone lying "flat" on a desk is a few degrees off in each direction.
        let maximumTilt = 5 * Double.pi / 180
        let tiltX = maximumTilt * (2 * traits.nextUnit() - 1)
        let tiltY = maximumTilt * (2 * traits.nextUnit() - 1)
        // Rotations keep the vector's length: |gravity| stays exactly `gravity`.
        self.gravity = SIMD3(
            gravity * Math.sine(tiltX),
            gravity * Math.cosine(tiltX) * Math.sine(tiltY),
            -gravity * Math.cosine(tiltX) * Math.cosine(tiltY)
        )
        let (biasX, biasY) = traits.nextGaussianPair()
        bias = SIMD3(biasX, biasY, traits.nextGaussian()) * 0.004
        self.noise = noise
        self.motion = motion.profileType.init(traits: &traits)
        sampleSeed = seed.derive("samples")
        reading = self.gravity + bias
    }

    public var dependsOnHistory: Bool {
        motion.dependsOnHistory
    }

    public func advance(to sample: SampleInstant) {
        var random = sampleSeed.derive(sample.index).generator()
        let moving = motion.acceleration(at: sample.time, random: &random)
        let (x, y) = random.nextGaussianPair()
        let sensor = SIMD3(x, y, random.nextGaussian()) * noise
        reading = gravity + bias + moving + sensor
    }
}
