/// `expr: "temp_c * 1.8 + 32"`: a formula of the other fields of the same message, the device's
/// time, index and id, and seeded randomness (`docs/scenarios.md`, Formulas). Parsed as the
/// field is read; its names and kinds are checked, and it is compiled, with the rest of its
/// payload (`PayloadFormulas.check`), which sets `program`.
package struct FormulaRecipe: GeneratorRecipe {
    package static let key = "expr"
    package let text: String
    package let syntax: FormulaSyntax
    /// Set by `PayloadFormulas.check`; until then the field gives `null`.
    package var program: FormulaProgram?

    package init(_ text: String) throws(FormulaError) {
        self.text = text
        syntax = try FormulaParser.parse(text)
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        guard let text = parameters.shorthand else {
            throw ParameterError(key: nil, "expr takes its formula as text, such as expr: \"temp_c * 1.8 + 32\"")
        }
        do {
            try self.init(text)
        } catch {
            throw ParameterError(key: nil, error.message, offset: error.offset)
        }
    }

    package var valueKind: ValueKind { program?.kind ?? .number }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        guard let program else { return ConstantRecipe(value: .null) }
        return FormulaMachine(program: program, context: context)
    }
}
