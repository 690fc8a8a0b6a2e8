/// `constant: 5`, `constant: hello`, `constant: { value: true }`: the same value in every publish.
/// A string's `{id}` and `{index}` are filled per device (`constant: "{id}"`, `"sensor {index}"`).
package struct ConstantRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "constant"
    package var value: SignalValue

    package init(value: SignalValue) {
        self.value = value
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            value = Self.interpret(shorthand)
            return
        }
        // The map form keeps the scalar's type, so ask for each type in turn; a type mismatch is
        // the source's way of saying "not this one".
        if let number = try? parameters.number("value") {
            guard number.isFinite else { throw ParameterError(key: "value", "value must be a finite number") }
            value = .number(number)
        } else if let bool = try? parameters.bool("value") {
            value = .bool(bool)
        } else if let string = try parameters.string("value") {
            value = .string(string)
        } else {
            throw ParameterError(key: "value", "value is required")
        }
    }

    /// A shorthand arrives as text: numbers and booleans are recognised as such, anything else is
    /// a string.
    static func interpret(_ text: String) -> SignalValue {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default:
            if let number = Double(text), number.isFinite, text.first != "+" {
                return .number(number)
            }
            return .string(text)
        }
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        guard case .string(let text) = value, text.contains("{") else { return self }
        let filled = text.replacingPlaceholder("{id}", with: context.deviceID)
            .replacingPlaceholder("{index}", with: String(context.index))
        return ConstantRecipe(value: .string(filled))
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        value
    }
}

extension String {
    /// Every occurrence of `placeholder` replaced, without Foundation.
    fileprivate func replacingPlaceholder(_ placeholder: String, with value: String) -> String {
        guard !placeholder.isEmpty, contains(placeholder) else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: placeholder) {
            result += rest[..<range.lowerBound]
            result += value
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
