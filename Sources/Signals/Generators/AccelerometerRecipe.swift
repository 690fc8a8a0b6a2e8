/// `accelerometer: x` or
/// `accelerometer: { axis: y, motion: walking, orientation: upright, noise: 0.005, gravity: 1, aggregate: mean }`:
/// one axis of the device's accelerometer (or the magnitude of its reading), in g.
///
/// Fields with the same motion, orientation, noise and gravity share one `AccelerometerModel`
/// per device, so their axes are correlated; `aggregate` belongs to the field, so the mean of x
/// and the latest y can come from one model.
package struct AccelerometerRecipe: GeneratorRecipe {
    package static let key = "accelerometer"

    package enum Axis: String, Sendable, CaseIterable {
        case x, y, z
        /// √(x² + y² + z²) of the same sample: about 1 g at rest, whatever the orientation.
        case magnitude

        var index: Int {
            switch self {
            case .x: 0
            case .y: 1
            case .z: 2
            case .magnitude: 3
            }
        }
    }

    /// What a publish carries of the samples taken since the one before.
    package enum Aggregate: String, Sendable, CaseIterable {
        /// The latest sample.
        case latest
        /// The mean of the samples.
        case mean
        /// The largest value of the axis (signed, not absolute); for `magnitude`, the largest
        /// magnitude.
        case max
    }

    package var axis: Axis
    package var motion: Motion
    package var orientation: Orientation
    /// Standard deviation of the sensor noise, in g.
    package var noise: Double
    /// Magnitude of gravity, in g.
    package var gravity: Double
    package var aggregate: Aggregate

    package init(
        axis: Axis, motion: Motion = .still, orientation: Orientation = .flat, noise: Double = 0.004,
        gravity: Double = 1, aggregate: Aggregate = .latest
    ) {
        self.axis = axis
        self.motion = motion
        self.orientation = orientation
        self.noise = noise
        self.gravity = gravity
        self.aggregate = aggregate
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            guard let axis = Axis(rawValue: shorthand) else {
                throw ParameterError(key: nil, "axis must be one of \(Self.names(Axis.self)), found '\(shorthand)'")
            }
            self.init(axis: axis)
            return
        }
        guard let axisText = try parameters.string("axis") else {
            throw ParameterError(key: "axis", "axis is required: one of \(Self.names(Axis.self))")
        }
        guard let axis = Axis(rawValue: axisText) else {
            throw ParameterError(key: "axis", "axis must be one of \(Self.names(Axis.self)), found '\(axisText)'")
        }
        let motion = try Self.choice("motion", in: parameters, default: Motion.still)
        let orientation = try Self.choice("orientation", in: parameters, default: Orientation.flat)
        let noise = try parameters.finiteNumber("noise") ?? 0.004
        guard noise >= 0 else { throw ParameterError(key: "noise", "noise must not be negative") }
        let gravity = try parameters.finiteNumber("gravity") ?? 1
        guard gravity >= 0 else { throw ParameterError(key: "gravity", "gravity must not be negative") }
        let aggregate = try Self.choice("aggregate", in: parameters, default: Aggregate.latest)
        self.init(
            axis: axis, motion: motion, orientation: orientation, noise: noise, gravity: gravity,
            aggregate: aggregate)
    }

    /// The case of `Choice` named by `key`, `fallback` when absent.
    private static func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, in parameters: any ParameterSource, default fallback: Choice
    ) throws(ParameterError) -> Choice where Choice.RawValue == String {
        guard let text = try parameters.string(key) else { return fallback }
        guard let named = Choice(rawValue: text) else {
            throw ParameterError(key: key, "\(key) must be one of \(names(Choice.self)), found '\(text)'")
        }
        return named
    }

    /// "x, y, z, magnitude": what a scenario may write.
    private static func names<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type) -> String
    where Choice.RawValue == String {
        Choice.allCases.map(\.rawValue).joined(separator: ", ")
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        let key = "\(motion.rawValue)/\(orientation.rawValue)/\(noise)/\(gravity)"
        let model = context.sharedModel(key: key) { seed in
            AccelerometerModel(
                seed: seed, motion: motion, orientation: orientation, gravity: gravity,
                noise: noise, sampleInterval: context.sampleInterval)
        }
        switch aggregate {
        case .latest: return Latest(model: model, axis: axis.index)
        case .mean:
            model.enableAggregation()
            return Mean(model: model, axis: axis.index)
        case .max:
            model.enableAggregation()
            return Maximum(model: model, axis: axis.index)
        }
    }

    struct Latest: FieldGenerator {
        let model: AccelerometerModel
        let axis: Int

        func value(at instant: PublishInstant) -> SignalValue {
            .number(model.latest(axis))
        }
    }

    struct Mean: FieldGenerator {
        let model: AccelerometerModel
        let axis: Int

        func value(at instant: PublishInstant) -> SignalValue {
            .number(model.mean(axis))
        }
    }

    struct Maximum: FieldGenerator {
        let model: AccelerometerModel
        let axis: Int

        func value(at instant: PublishInstant) -> SignalValue {
            .number(model.maximum(axis))
        }
    }
}
