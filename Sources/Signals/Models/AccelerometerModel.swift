/// One device's 3-axis accelerometer, in g: gravity seen through how the device is held (its
/// orientation and a small fixed tilt of its own), a fixed per-axis bias (a real sensor's
/// calibration error), the motion profile's acceleration turned into the device's frame, and
/// gaussian sensor noise. Every accelerometer field of a device with the same settings reads the
/// one model, so its axes move together.
///
/// Each sample is a function of the model's seed and the sample's index alone. When a field asks
/// for the mean or maximum of the samples since the last publish (`enableAggregation()`), the
/// model also keeps running sums and maxima, per axis and for the magnitude, for the window that
/// the last read closed; the next sample opens a new one.
///
/// Made by `make(...)`, which picks a subclass specialised for the motion profile, so the
/// per-sample call to the profile is static.
public class AccelerometerModel: SampledModel {
    /// The latest sample.
    public final fileprivate(set) var reading: SIMD3<Double>

    final let gravity: SIMD3<Double>
    final let bias: SIMD3<Double>
    final let noise: Double
    final let frame: BodyFrame
    final let sampleSeed: Seed

    /// Whether some field reads the mean or maximum: every sample must then be visited.
    public final private(set) var aggregating = false
    /// The samples in the current window and their sums and maxima, as (x, y, z, magnitude).
    final private(set) var windowCount = 0
    final private(set) var windowSum = SIMD4<Double>.zero
    final private(set) var windowMaximum = SIMD4<Double>.zero
    /// Set by a read: the next sample starts a new window.
    final private var windowClosed = false

    /// A model of `motion` for the device whose model seed is `seed`.
    /// - Parameters:
    ///   - gravity: magnitude of gravity, in g.
    ///   - noise: standard deviation of the sensor noise on each axis, in g.
    ///   - sampleInterval: seconds between samples, `nil` for one sample per publish; profiles
    ///     leave out vibrations the rate cannot carry.
    public static func make(seed: Seed, motion: Motion, orientation: Orientation = .flat,
                            gravity: Double = 1, noise: Double = 0.004,
                            sampleInterval: Double? = nil) -> AccelerometerModel {
        func make<Profile: MotionProfile>(_ profile: Profile.Type) -> AccelerometerModel {
            ProfiledAccelerometer<Profile>(seed: seed, orientation: orientation, gravity: gravity, noise: noise,
                                           sampleInterval: sampleInterval)
        }
        return make(motion.profileType)
    }

    init(seed: Seed, orientation: Orientation, gravity: Double, noise: Double) {
        var traits = seed.derive("traits").generator()
        frame = orientation.frame(traits: &traits)
        // Gravity pulls down; the sensor reads it on the axes that point up, negatively.
        self.gravity = frame.up * -gravity
        let (biasX, biasY) = traits.nextGaussianPair()
        bias = SIMD3(biasX, biasY, traits.nextGaussian()) * 0.004
        self.noise = noise
        sampleSeed = seed.derive("samples")
        reading = self.gravity + bias
    }

    public var dependsOnHistory: Bool {
        aggregating
    }

    public func advance(to sample: SampleInstant) {
        preconditionFailure("an AccelerometerModel is made by AccelerometerModel.make, for a motion profile")
    }

    /// The magnitude of the latest sample: √(x² + y² + z²).
    public final var magnitude: Double {
        (reading * reading).sum().squareRoot()
    }

    /// From now on, keep the mean and maximum of the samples between reads. Call before the
    /// device's models are sorted by `dependsOnHistory`, that is while its generators are made.
    public final func enableAggregation() {
        aggregating = true
    }

    /// The latest sample's axis 0, 1, 2 (x, y, z) or 3 (the magnitude).
    @inline(__always)
    final func latest(_ axis: Int) -> Double {
        axis < 3 ? reading[axis] : magnitude
    }

    /// The mean of axis 0…3 over the samples since the last read, and closes the window. A read
    /// that finds no new sample since the one before repeats its value, as `latest` would.
    final func mean(_ axis: Int) -> Double {
        windowClosed = true
        return windowCount == 0 ? latest(axis) : windowSum[axis] / Double(windowCount)
    }

    /// The largest value of axis 0…3 over the samples since the last read, and closes the window.
    final func maximum(_ axis: Int) -> Double {
        windowClosed = true
        return windowCount == 0 ? latest(axis) : windowMaximum[axis]
    }

    /// Takes the sample whose motion acceleration (in the carrier's frame) is `moving`, drawing
    /// its sensor noise from the rest of the sample's stream.
    @inline(__always)
    final func record(moving: SIMD3<Double>, random: inout Xoshiro256StarStar) {
        var value = gravity + bias + frame.deviceVector(moving)
        if noise > 0 {
            let (x, y) = random.nextGaussianPair()
            value += SIMD3(x, y, random.nextGaussian()) * noise
        }
        reading = value
        if aggregating {
            accumulate(value)
        }
    }

    final func accumulate(_ value: SIMD3<Double>) {
        let sample = SIMD4(value, (value * value).sum().squareRoot())
        if windowClosed || windowCount == 0 {
            windowClosed = false
            windowCount = 1
            windowSum = sample
            windowMaximum = sample
        } else {
            windowCount += 1
            windowSum += sample
            windowMaximum = pointwiseMax(windowMaximum, sample)
        }
    }
}

/// The model specialised for one motion profile.
final class ProfiledAccelerometer<Profile: MotionProfile>: AccelerometerModel {
    let profile: Profile

    init(seed: Seed, orientation: Orientation, gravity: Double, noise: Double, sampleInterval: Double?) {
        var traits = seed.derive("motion").generator()
        profile = Profile(traits: &traits, sampleInterval: sampleInterval)
        super.init(seed: seed, orientation: orientation, gravity: gravity, noise: noise)
    }

    override var dependsOnHistory: Bool {
        aggregating || profile.dependsOnHistory
    }

    override func advance(to sample: SampleInstant) {
        var random = sampleSeed.derive(sample.index).generator()
        let moving = profile.acceleration(at: sample.time, random: &random)
        record(moving: moving, random: &random)
    }
}
