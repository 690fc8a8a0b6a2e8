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
package final class AccelerometerModel: SharedModel {
    /// The type's name when seeds were first derived from it: the values of every seeded run
    /// since depend on these bytes.
    package static let seedLabel = "AccelerometerModel"

    /// The latest sample.
    package private(set) var reading: SIMD3<Double>

    let gravity: SIMD3<Double>
    let bias: SIMD3<Double>
    let noise: Double
    let frame: BodyFrame
    let motion: MotionState
    let sampleSeed: Seed

    /// Whether some field reads the mean or maximum: every sample must then be visited.
    package private(set) var aggregating = false
    /// The samples in the current window and their sums and maxima, as (x, y, z, magnitude).
    private var windowCount = 0
    private var windowSum = SIMD4<Double>.zero
    private var windowMaximum = SIMD4<Double>.zero
    /// Set by a read: the next sample starts a new window.
    private var windowClosed = false

    /// - Parameters:
    ///   - seed: the model's seed; every sample descends from it.
    ///   - gravity: magnitude of gravity, in g.
    ///   - noise: standard deviation of the sensor noise on each axis, in g.
    ///   - sampleInterval: seconds between samples, `nil` for one sample per publish; profiles
    ///     leave out vibrations the rate cannot carry.
    package init(
        seed: Seed, motion: Motion, orientation: Orientation = .flat, gravity: Double = 1,
        noise: Double = 0.004, sampleInterval: Double? = nil
    ) {
        var traits = seed.derive("traits").generator()
        frame = orientation.frame(traits: &traits)
        // Gravity pulls down; the sensor reads it on the axes that point up, negatively.
        self.gravity = frame.up * -gravity
        let (biasX, biasY) = traits.nextGaussianPair()
        bias = SIMD3(biasX, biasY, traits.nextGaussian()) * 0.004
        self.noise = noise
        // The profile's traits have a stream of their own: changing the orientation or the bias
        // leaves a walker's cadence alone.
        var motionTraits = seed.derive("motion").generator()
        self.motion = MotionState(motion, traits: &motionTraits, sampleInterval: sampleInterval)
        sampleSeed = seed.derive("samples")
        reading = self.gravity + bias
    }

    package var dependsOnHistory: Bool {
        aggregating || motion.profile.dependsOnHistory
    }

    package func advance(to sample: SampleInstant) {
        var random = sampleSeed.derive(sample.index).generator()
        let moving = motion.acceleration(at: sample.time, random: &random)
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

    /// The magnitude of the latest sample: √(x² + y² + z²).
    package var magnitude: Double {
        (reading * reading).sum().squareRoot()
    }

    /// From now on, keep the mean and maximum of the samples between reads. Call before the
    /// device's models are sorted by `dependsOnHistory`, that is while its generators are made.
    package func enableAggregation() {
        aggregating = true
    }

    /// The latest sample's axis 0, 1, 2 (x, y, z) or 3 (the magnitude).
    @inline(__always)
    func latest(_ axis: Int) -> Double {
        axis < 3 ? reading[axis] : magnitude
    }

    /// The mean of axis 0…3 over the samples since the last read, and closes the window. A read
    /// that finds no new sample since the one before repeats its value, as `latest` would.
    func mean(_ axis: Int) -> Double {
        windowClosed = true
        return windowCount == 0 ? latest(axis) : windowSum[axis] / Double(windowCount)
    }

    /// The largest value of axis 0…3 over the samples since the last read, and closes the window.
    func maximum(_ axis: Int) -> Double {
        windowClosed = true
        return windowCount == 0 ? latest(axis) : windowMaximum[axis]
    }

    private func accumulate(_ value: SIMD3<Double>) {
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
