/// `accelerometer: x` or `accelerometer: { axis: y, motion: walking, noise: 0.005, gravity: 1 }`:
/// one axis of the device's accelerometer, in g. Fields with the same motion, noise and gravity
/// share one `AccelerometerModel` per device.
public struct AccelerometerRecipe: GeneratorRecipe {
    public static let key = "accelerometer"

    public enum Axis: String, Sendable, CaseIterable {
        case x, y, z

        var index: Int {
            switch self {
            case .x: 0
            case .y: 1
            case .z: 2
            }
        }
    }

    public var axis: Axis
    public var motion: Motion
    /// Standard deviation of the sensor noise, in g.
    public var noise: Double
    /// Magnitude of gravity, in g.
    public var gravity: Double

    public init(axis: Axis, motion: Motion = .still, noise: Double = 0.004, gravity: Double = 1) {
        self.axis = axis
        self.motion = motion
        self.noise = noise
        self.gravity = gravity
    }

    public init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            guard let axis = Axis(rawValue: shorthand) else {
                throw ParameterError(key: nil, "axis must be x, y or z, found '\(shorthand)'")
            }
            self.init(axis: axis)
            return
        }
        guard let axisText = try parameters.string("axis") else {
            throw ParameterError(key: "axis", "axis is required (x, y or z)")
        }
        guard let axis = Axis(rawValue: axisText) else {
            throw ParameterError(key: "axis", "axis must be x, y or z, found '\(axisText)'")
        }
        var motion = Motion.still
        if let motionText = try parameters.string("motion") {
            guard let named = Motion(rawValue: motionText) else {
                let names = Motion.allCases.map(\.rawValue).joined(separator: ", ")
                throw ParameterError(key: "motion", "motion must be one of \(names), found '\(motionText)'")
            }
            motion = named
        }
        let noise = try parameters.finiteNumber("noise") ?? 0.004
        guard noise >= 0 else { throw ParameterError(key: "noise", "noise must not be negative") }
        let gravity = try parameters.finiteNumber("gravity") ?? 1
        guard gravity >= 0 else { throw ParameterError(key: "gravity", "gravity must not be negative") }
        self.init(axis: axis, motion: motion, noise: noise, gravity: gravity)
    }

    public func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        let model = context.sharedModel(key: "\(motion.rawValue)/\(noise)/\(gravity)") { seed in
            AccelerometerModel(seed: seed, motion: motion, gravity: gravity, noise: noise)
        }
        return Generator(model: model, axis: axis.index)
    }

    struct Generator: FieldGenerator {
        let model: AccelerometerModel
        let axis: Int

        func value(at instant: PublishInstant) -> SignalValue {
            .number(model.reading[axis])
        }
    }
}
