/// `constant: 5`, `constant: hello`, `constant: { value: true }`: the same value in every publish.
/// A string's `{id}` and `{index}` are filled per device (`constant: "{id}"`, `"sensor {index}"`),
/// but for those in a value of the environment (`constant: ${LABEL}`), which is data.
package struct ConstantRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "constant"
    package var value: SignalValue
    /// Where a string holds values of the environment, as offsets of its UTF-8 bytes.
    var environmentValues: [Range<Int>] = []

    package init(value: SignalValue) {
        self.value = value
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            value = Self.interpret(shorthand)
            environmentValues = parameters.environmentValues(nil)
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
            environmentValues = parameters.environmentValues("value")
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
        let filled = text.filling([("{id}", context.deviceID), ("{index}", String(context.index))], outside: environmentValues)
        return ConstantRecipe(value: .string(filled))
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        value
    }
}

extension String {
    /// Each of `placeholders` replaced by its value, in one pass from the left, but where it
    /// stands within `data` (UTF-8 offsets); without Foundation.
    fileprivate func filling(_ placeholders: [(written: String, value: String)], outside data: [Range<Int>]) -> String {
        var result = ""
        var rest = self[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            rest = rest[open...]
            let start = utf8.distance(from: startIndex, to: open)
            if let placeholder = placeholders.first(where: { rest.hasPrefix($0.written) }),
                !data.contains(where: { $0.overlaps(start..<start + placeholder.written.utf8.count) })
            {
                result += placeholder.value
                rest = rest.dropFirst(placeholder.written.count)
            } else {
                result += "{"
                rest = rest.dropFirst()
            }
        }
        return result + rest
    }
}
