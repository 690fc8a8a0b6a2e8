import Signals
import Testing

/// Issue 40, item 1: the formula language's grammar: precedence and associativity, as the values
/// of formulas of constants show them, and each syntax error at the character it is about.
@Suite struct FormulaParserTests {
    /// The payload `{"f":…}` of a device whose one field is the formula `text`.
    static func value(_ text: String) throws -> String {
        let (fields, problems) = PayloadFormulas.check(
            [FieldSpec(name: "f", generator: try FormulaRecipe(text))], closest: { _, _ in nil })
        try #require(problems.isEmpty, "\(problems)")
        var device = DeviceDriver(fields, style: .flat)
        return String(device.publish().dropFirst(5).dropLast())
    }

    static func error(_ text: String) -> FormulaError? {
        do {
            _ = try FormulaRecipe(text)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("1 + 2 * 3", "7"), ("(1 + 2) * 3", "9"), ("10 - 4 - 3", "3"), ("2 * 3 % 4", "2"), ("7 % 4", "3"), ("-7 % 4", "-3"),
        ("8 / 2 / 2", "2"),
        // `^` is right to left and binds tighter than unary minus, as in mathematics.
        ("2 ^ 3 ^ 2", "512"), ("-2 ^ 2", "-4"), ("2 ^ -1", "0.5"), ("(-2) ^ 2", "4"), ("--3", "3"),
        ("1 + 2 < 4", "true"), ("1 < 2 == 2 < 3", "true"), ("1 == 1 != false", "true"),
        ("true || false && false", "true"), ("(true || false) && false", "false"), ("!true || true", "true"),
        ("!(1 > 2)", "true"),
        // `?:` is right to left, and looser than everything else.
        ("1 > 2 ? 10 : 3 > 2 ? 20 : 30", "20"), ("true ? 1 : 2 + 10", "1"), ("false ? 1 : 2 + 10", "12"),
        ("1.5e3", "1500"), (".5", "0.5"), ("pi > 3.14 && pi < 3.15", "true"),
    ])
    func precedenceAndAssociativity(formula: String, value: String) throws {
        #expect(try Self.value(formula) == value, "\(formula)")
    }

    @Test func textsInEitherQuotesWithEscapes() throws {
        #expect(try Self.value(#""say \"hi\"""#) == #""say \"hi\"""#)
        #expect(try Self.value(#"'a\'b' == "a'b""#) == "true")
        #expect(try Self.value(#""tab\there""#) == #""tab\u0009here""#)
    }

    @Test(arguments: [
        ("temp_c * * 2", 9, "expected a value (a number, a field, a function call or '('), found '*'"),
        ("(1 + 2", 6, "expected ')' to close the '(' at character 1, found the end of the formula"),
        ("1 +", 3, "the formula ends where a value is expected"),
        ("", 0, "the formula is empty: expected an expression such as temp_c * 1.8 + 32"),
        ("  ", 0, "the formula is empty: expected an expression such as temp_c * 1.8 + 32"),
        ("2 ** 3", 2, "unexpected '**': power is '^' here: write 2 ^ 3"),
        ("a = b", 2, "unexpected '=': expected '==' to compare"),
        ("a & b", 2, "unexpected '&': expected '&&' (and)"),
        ("2x", 1, "unexpected 'x' after the number 2; an operator goes between: 2 * x"),
        ("1 2", 2, "expected an operator or the end of the formula, found '2'"),
        ("\"open", 0, "the text that starts here has no closing \""),
        ("\"a\\q\"", 2, "unknown escape '\\q' in a text: expected \\\", \\', \\\\, \\n or \\t"),
        ("min(1, 2", 8, "expected ',' or ')' in the arguments of min, found the end of the formula"),
        ("t > 1 ? 2", 9, "expected ':' and the value when the condition is false, found the end of the formula"),
        ("x # 1", 2, "unexpected '#' in a formula"),
        ("`a", 0, "the name that starts here has no closing '`'"),
        ("é + ) ", 4, "expected a value (a number, a field, a function call or '('), found ')'"),
    ])
    func syntaxErrorsAtTheirCharacter(formula: String, offset: Int, message: String) {
        #expect(Self.error(formula) == FormulaError(offset: offset, message), "\(formula)")
    }

    /// Checking and compiling recurse over the tree: a formula deeper than the limit is refused
    /// as it is read, however it nests.
    @Test func deepFormulasAreRefused() {
        let parentheses = String(repeating: "(", count: 300) + "1" + String(repeating: ")", count: 300)
        #expect(Self.error(parentheses)?.message == "the formula nests deeper than 200 levels")
        let sum = Array(repeating: "1", count: 300).joined(separator: " + ")
        #expect(Self.error(sum)?.message == "the formula nests deeper than 200 levels")
        let powers = Array(repeating: "1", count: 300).joined(separator: " ^ ")
        #expect(Self.error(powers)?.message == "the formula nests deeper than 200 levels")
        #expect(Self.error(Array(repeating: "1", count: 150).joined(separator: " + ")) == nil)
    }
}
