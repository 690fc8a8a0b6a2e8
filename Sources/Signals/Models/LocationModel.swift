/// One device's GPS track: a position that moves at a constant speed along a heading that
/// wanders. Every `location` field of a device with the same parameters reads the one model, so
/// its latitude and longitude belong to the same point.
///
/// Each sample moves the position `speed × dt` metres along the heading, on a sphere of the
/// Earth's mean radius (a local flat step: exact enough for steps of metres to kilometres), and
/// turns the heading by a gaussian angle of σ `turn × √dt`, a heading that drifts like a driver's
/// rather than jitters. Crossing a pole comes out on the other side, heading back south (or
/// north); longitude stays in [-180, 180).
package final class LocationModel: SharedModel {
    /// The type's name when seeds were first derived from it: the values of every seeded run
    /// since depend on these bytes.
    package static let seedLabel = "LocationModel"

    /// The Earth's mean radius, in metres.
    package static let earthRadius = 6_371_008.8

    /// Degrees, north positive.
    package var latitude: Double { latitudeRadians * 180 / .pi }
    /// Degrees, east positive, in [-180, 180).
    package var longitude: Double { longitudeRadians * 180 / .pi }
    /// Degrees clockwise from north, in [0, 360).
    package var heading: Double {
        let degrees = headingRadians * 180 / .pi
        let reduced = degrees.truncatingRemainder(dividingBy: 360)
        return reduced < 0 ? reduced + 360 : reduced
    }

    private var latitudeRadians: Double
    private var longitudeRadians: Double
    private var headingRadians: Double
    /// Metres per second.
    let speed: Double
    /// σ of the heading's change over one second, in radians.
    let turn: Double
    let sampleSeed: Seed
    private var lastTime: Double?

    /// - Parameters:
    ///   - latitude, longitude: the start, in degrees.
    ///   - speed: metres per second.
    ///   - heading: degrees clockwise from north; `nil` draws one per device from `seed`.
    ///   - turn: σ of the heading's change over one second, in degrees.
    ///   - spread: the device starts at a random point within this many metres of the start.
    package init(
        seed: Seed, latitude: Double, longitude: Double, speed: Double, heading: Double?, turn: Double,
        spread: Double = 0
    ) {
        var traits = seed.derive("traits").generator()
        latitudeRadians = latitude * .pi / 180
        longitudeRadians = longitude * .pi / 180
        let drawnHeading = 2 * Double.pi * traits.nextUnit()
        headingRadians = heading.map { $0 * .pi / 180 } ?? drawnHeading
        self.speed = speed
        self.turn = turn * .pi / 180
        sampleSeed = seed.derive("samples")
        if spread > 0 {
            // Uniform over the disc: the radius goes as the square root of a uniform draw.
            let distance = spread * traits.nextUnit().squareRoot()
            move(distance, along: 2 * Double.pi * traits.nextUnit())
        }
    }

    package func advance(to sample: SampleInstant) {
        guard let lastTime else {
            // The first sample is the start.
            self.lastTime = sample.time
            return
        }
        let elapsed = Swift.max(sample.time - lastTime, 0)
        self.lastTime = sample.time
        if turn > 0 {
            var random = sampleSeed.derive(sample.index).generator()
            headingRadians += turn * elapsed.squareRoot() * random.nextGaussian()
            headingRadians = WallClockPeak.reduced(headingRadians, 2 * .pi)
        }
        move(speed * elapsed, along: headingRadians)
    }

    /// Moves `distance` metres along `bearing` (radians clockwise from north).
    private func move(_ distance: Double, along bearing: Double) {
        guard distance > 0 else { return }
        let angle = distance / Self.earthRadius
        let east = angle * Math.sine(bearing) / Swift.max(Math.cosine(latitudeRadians), 1e-9)
        latitudeRadians += angle * Math.cosine(bearing)
        longitudeRadians += east
        if latitudeRadians > .pi / 2 {
            latitudeRadians = .pi - latitudeRadians
            longitudeRadians += .pi
            headingRadians = .pi - headingRadians
        } else if latitudeRadians < -.pi / 2 {
            latitudeRadians = -.pi - latitudeRadians
            longitudeRadians += .pi
            headingRadians = .pi - headingRadians
        }
        longitudeRadians = WallClockPeak.reduced(longitudeRadians + .pi, 2 * .pi) - .pi
    }
}
