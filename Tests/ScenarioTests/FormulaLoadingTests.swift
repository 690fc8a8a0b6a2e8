import Testing
@testable import Scenario
import Signals

/// Issue 40, item 1: a formula's problems are found as the scenario loads, each at the file's
/// line and column of the token it is about: syntax, unknown names and functions with a hint,
/// arity, circles of formulas, and the kinds of values.
@Suite struct FormulaLoadingTests {
    /// A group whose payload's fields are `fields`, one a line, at line 7 on.
    static func scenario(_ fields: [String]) -> String {
        "devices:\n  - name: d\n    topic: t\n    publish: 1/s\n    payload:\n      fields:\n"
            + fields.map { "        " + $0 + "\n" }.joined()
    }

    static func problems(_ fields: [String]) -> [String] {
        do {
            _ = try ScenarioLoader.load(text: scenario(fields), file: "f.yaml", environment: [:])
            return ["loaded without errors"]
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    static let temperature = "temp_c: { randomWalk: { start: 21, step: 0.1, min: 15, max: 30 }, decimals: 1 }"

    @Test func aSyntaxErrorIsAtItsColumn() {
        #expect(
            Self.problems([Self.temperature, #"temp_f: { expr: "temp_c * * 1.8", decimals: 1 }"#]) == [
                "f.yaml:8:35: expected a value (a number, a field, a function call or '('), found '*'"
            ])
    }

    /// The column counts the characters as the file writes them: escapes, quotes doubled, a
    /// plain scalar, a JSON-style line.
    @Test func theColumnIsTheFilesWhateverTheQuoting() {
        #expect(
            Self.problems([#"a: { expr: "\"x\" == \"y\" == 1 ** 2" }"#]) == ["f.yaml:7:41: unexpected '**': power is '^' here: write 2 ^ 3"]
        )
        #expect(Self.problems([#"a: { expr: '"it''s" ** 2' }"#]) == ["f.yaml:7:29: unexpected '**': power is '^' here: write 2 ^ 3"])
        #expect(Self.problems(["a: { expr: t ** 2 }"]) == ["f.yaml:7:22: unexpected '**': power is '^' here: write 2 ^ 3"])
        #expect(Self.problems(["a:", "  expr: t ** 2"]) == ["f.yaml:8:19: unexpected '**': power is '^' here: write 2 ^ 3"])
    }

    /// Where the file does not show the text one for one (a block scalar), the error is at the
    /// formula's start.
    @Test func aBlockScalarsErrorIsAtTheFormula() {
        #expect(Self.problems(["a:", "  expr: >-", "    t ** 2"]) == ["f.yaml:8:17: unexpected '**': power is '^' here: write 2 ^ 3"])
    }

    @Test func unknownNamesAndFunctionsGetAHint() {
        #expect(
            Self.problems([Self.temperature, #"temp_f: { expr: "tmp_c * 1.8 + 32" }"#]) == [
                "f.yaml:8:26: unknown name 'tmp_c' in the formula; did you mean 'temp_c'?"
            ])
        #expect(Self.problems([#"wave: { expr: "sine(t)" }"#]) == ["f.yaml:7:24: unknown function 'sine'; did you mean 'sin'?"])
        #expect(
            Self.problems([#"wave: { expr: "zzz" }"#]) == [
                "f.yaml:7:24: unknown name 'zzz' in the formula; expected a field of the payload (wave) or t, time, index, id, pi"
            ])
        #expect(
            Self.problems([
                "location: { fields: { lat: { constant: 52.5 }, lon: { constant: 13.4 } } }", #"north: { expr: "lat > 50" }"#,
            ]) == [
                "f.yaml:8:25: unknown name 'lat' in the formula; did you mean 'location.lat'? (a member of a group is named by its path)"
            ])
        #expect(
            Self.problems([
                "location: { fields: { lat: { constant: 52.5 }, lon: { constant: 13.4 } } }", #"north: { expr: "location > 50" }"#,
            ]) == ["f.yaml:8:25: 'location' is a group of fields: name one of its members (location.lat, location.lon)"])
    }

    @Test func functionsTakeTheirArguments() {
        #expect(
            Self.problems([#"a: { expr: "clamp(t, 1)" }"#]) == ["f.yaml:7:21: clamp takes 3 arguments, clamp(x, lo, hi); found 2"])
        #expect(Self.problems([#"a: { expr: "min(t)" }"#]) == ["f.yaml:7:21: min takes 2 or more arguments, min(a, b, …); found 1"])
        #expect(Self.problems([#"a: { expr: "random(1)" }"#]) == ["f.yaml:7:21: random takes no arguments, random(); found 1"])
        #expect(Self.problems([#"a: { expr: "sin + 1" }"#]) == ["f.yaml:7:21: 'sin' is a function: call it, sin(x)"])
        #expect(Self.problems([#"a: { expr: "t(1)" }"#]) == ["f.yaml:7:21: 't' is no function; a name is read without '(…)'"])
    }

    @Test func formulasInACircleAreNamed() {
        #expect(
            Self.problems([#"a: { expr: "b + 1" }"#, #"b: { expr: "c * 2" }"#, #"c: { expr: "t + a" }"#, #"d: { expr: "a" }"#]) == [
                "f.yaml:9:25: formulas read each other in a circle: a → b → c → a; one of them must be made otherwise"
            ])
        // Each circle once, the shortest through its first formula, however they are linked.
        #expect(
            Self.problems([#"a: { expr: "c + b" }"#, #"b: { expr: "a" }"#, #"c: { expr: "d" }"#, #"d: { expr: "c" }"#]) == [
                "f.yaml:8:21: formulas read each other in a circle: a → b → a; one of them must be made otherwise",
                "f.yaml:10:21: formulas read each other in a circle: c → d → c; one of them must be made otherwise",
            ])
        #expect(
            Self.problems([#"a: { expr: "a + 1" }"#]) == [
                "f.yaml:7:21: field 'a' reads itself: a formula does not take its own value (integral adds a field up over time)"
            ])
    }

    @Test func theKindsOfValuesAreChecked() {
        let mode = "mode: { choice: { values: [heat, cool] } }"
        #expect(Self.problems([mode, #"a: { expr: "mode * 2" }"#]) == ["f.yaml:8:21: '*' takes numbers, not text ('mode')"])
        #expect(
            Self.problems([mode, #"a: { expr: "mode + \"s\"" }"#]) == [
                "f.yaml:8:21: '+' adds numbers (a formula does not join texts), not text ('mode')"
            ])
        #expect(
            Self.problems([#"a: { expr: "t ? 1 : 2" }"#]) == [
                "f.yaml:7:21: the condition before '?' is true or false (a comparison such as power > 2), not a number ('t')"
            ])
        #expect(
            Self.problems([#"a: { expr: "t > 1 ? 1 : \"no\"" }"#]) == [
                "f.yaml:7:33: the values on each side of ':' are of one kind: a number and text"
            ])
        #expect(
            Self.problems([mode, #"a: { expr: "mode == 1" }"#]) == ["f.yaml:8:26: '==' compares values of one kind: text with a number"])
        #expect(
            Self.problems([#"a: { expr: "t && true" }"#]) == [
                "f.yaml:7:21: '&&' takes true or false (a comparison such as power > 2), not a number ('t')"
            ])
        #expect(
            Self.problems(["ts: { timestamp: iso8601 }", #"a: { expr: "ts + 1" }"#]) == [
                "f.yaml:8:21: 'ts' is an ISO 8601 timestamp, which a formula does not read: t is the seconds since the device started"
            ])
    }

    /// A formula that reads a formula knows its kind, in whatever order they are written.
    @Test func aFormulaKnowsTheKindOfTheFormulasItReads() {
        #expect(
            Self.problems([#"a: { expr: "b * 2" }"#, #"b: { expr: "t > 1" }"#]) == [
                "f.yaml:7:21: '*' takes numbers, not true or false ('b')"
            ])
    }

    /// Decimals, noise, min, max and numeric faults are for numbers: at the modifier.
    @Test func aFormulaOfTextTakesNoModifierForNumbers() {
        #expect(
            Self.problems([#"state: { expr: "t > 2 ? 'high' : 'low'", decimals: 1 }"#]) == [
                "f.yaml:7:50: field 'state' gives text (its formula's value), and 'decimals' is for numbers"
            ])
        #expect(
            Self.problems([#"on: { expr: "t > 2", faults: { spike: { probability: 0.1, magnitude: 1 } } }"#]) == [
                "f.yaml:7:30: field 'on' gives true or false (its formula's value), and its spike, stuck and drift are for numbers"
            ])
    }

    @Test func aFormulaTakesNoCommandNorMap() {
        #expect(
            Self.problems([#"a: { expr: "t * 2", command: set }"#]) == [
                "f.yaml:7:38: field 'a' is a formula, whose value follows the fields it reads: no command sets it; give 'command' to a field it reads"
            ])
        #expect(
            Self.problems(["a: { expr: { value: t } }"]) == [
                "f.yaml:7:20: expr takes its formula as text, such as expr: \"temp_c * 1.8 + 32\""
            ])
    }

    /// What the rest of the scenario knows of a formula: the kind of its value.
    @Test func aLoadedFormulaHasTheKindOfItsValue() throws {
        let scenario = try ScenarioLoader.load(
            text: Self.scenario([
                Self.temperature, #"temp_f: { expr: "temp_c * 1.8 + 32", decimals: 1 }"#, #"hot: { expr: "temp_c > 25" }"#,
                #"state: { expr: "hot ? 'hot' : 'fine'" }"#,
            ]), file: "f.yaml", environment: [:])
        let kinds = scenario.groups[0].payload.fields.map { $0.generator?.valueKind }
        #expect(kinds == [.number, .number, .bool, .text])
    }
}
