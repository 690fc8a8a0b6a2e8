/// `counter: 0` or `counter: { start: 100, step: 5 }`: `start + step × n` in the n-th publish
/// (n from 0). Integer start and step give integers; otherwise numbers.
package struct CounterRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "counter"
    package var start: Double
    package var step: Double

    package init(start: Double = 0, step: Double = 1) {
        self.start = start
        self.step = step
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            guard let start = Double(shorthand), start.isFinite else {
                throw ParameterError(key: nil, "counter takes its start number, found '\(shorthand)'")
            }
            self.init(start: start)
            return
        }
        self.init(
            start: try parameters.finiteNumber("start") ?? 0,
            step: try parameters.finiteNumber("step") ?? 1)
    }

    /// Whether counting stays in exact integers (within ±2⁵³, where doubles hold every integer).
    var isIntegral: Bool {
        start.rounded(.towardZero) == start && step.rounded(.towardZero) == step
            && Swift.abs(start) < JSONWriter.exactIntegerLimit && Swift.abs(step) < JSONWriter.exactIntegerLimit
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        self
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        if isIntegral {
            // Wrapping arithmetic: a counter run long enough to overflow must not crash the daemon.
            return .integer(Int64(start) &+ Int64(step) &* Int64(instant.index))
        }
        return .number(start + step * Double(instant.index))
    }
}
