/// `sequence: { values: [off, low, high] }`: the values in order, one per publish, starting over
/// after the last. Values keep their type, as in `choice`.
package struct SequenceRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "sequence"
    package var values: [SignalValue]

    package init(values: [SignalValue]) {
        self.values = values
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "values (a list)")
        self.init(values: try parameters.requiredValues("values"))
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        self
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        // Publish indexes never go negative, but a remainder of one would index out of bounds.
        let position = instant.index % values.count
        return values[position < 0 ? position + values.count : position]
    }
}
