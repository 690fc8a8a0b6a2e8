import Signals

/// The generators of one device's fields, stepped as `DeviceSignals` steps them (every model
/// advanced to the sample, then each field asked for its value) but without encoding, so that
/// statistics over 100,000 values stay quick. One sample per step, `interval` seconds apart.
final class GeneratorHarness {
    let context: GeneratorContext
    let generators: [any FieldGenerator]
    let interval: Double
    let wallClockStart: Double
    private(set) var step = 0

    init(
        _ recipes: [any GeneratorRecipe], id: String = "device-1", seed: UInt64 = 42, interval: Double = 1,
        wallClockStart: Double = 1_700_000_000
    ) {
        let context = GeneratorContext(deviceID: id, index: 1, runSeed: seed, sampleInterval: interval)
        self.context = context
        generators = recipes.map { $0.makeGenerator(context: context) }
        self.interval = interval
        self.wallClockStart = wallClockStart
    }

    convenience init(
        _ recipe: any GeneratorRecipe, id: String = "device-1", seed: UInt64 = 42, interval: Double = 1,
        wallClockStart: Double = 1_700_000_000
    ) {
        self.init([recipe], id: id, seed: seed, interval: interval, wallClockStart: wallClockStart)
    }

    /// The values of every field at the next step.
    func nextValues() -> [SignalValue] {
        let time = Double(step) * interval
        let sample = SampleInstant(index: step, time: time)
        for model in context.models { model.advance(to: sample) }
        let instant = PublishInstant(index: step, sample: sample, elapsed: time, wallClock: wallClockStart + time)
        step += 1
        return generators.map { $0.value(at: instant) }
    }

    /// The first field's value at the next step.
    func next() -> SignalValue {
        nextValues()[0]
    }

    /// The first field's next `count` values, as numbers (`nil` for a value that is not one).
    func numbers(_ count: Int) -> [Double] {
        (0..<count).map { _ in next().number ?? .nan }
    }

    func values(_ count: Int) -> [SignalValue] {
        (0..<count).map { _ in next() }
    }
}

extension SignalValue {
    var number: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
