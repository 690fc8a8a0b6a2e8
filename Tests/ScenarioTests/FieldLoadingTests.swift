import Testing
@testable import Scenario
import Signals

@Suite struct FieldLoadingTests {
    func device(fields: String) -> String {
        "devices:\n  - name: d\n    topic: t\n    publish: 1/s\n    payload:\n      fields:\n" + fields
    }

    @Test func unknownGeneratorGetsAHint() {
        #expect(
            problems(device(fields: "        T: { sinus: { period: 1h } }")) == [
                "test.yaml:7:14: unknown generator 'sinus'; did you mean 'sine'? (generators: " + generatorList
            ])
    }

    @Test func unknownGeneratorWithoutAHintListsTheKnownOnes() {
        #expect(
            problems(device(fields: "        T: { zzzzzz: 1 }")) == [
                "test.yaml:7:14: unknown generator 'zzzzzz'; expected one of: sine, accelerometer, uuid"
            ])
    }

    @Test func aFieldNeedsAGenerator() {
        #expect(
            problems(device(fields: "        T: { decimals: 2 }")) == [
                "test.yaml:7:12: field 'T' needs a generator: one of sine, accelerometer, uuid"
            ])
    }

    /// `connection: shared` once got "did you mean 'shared'?", the word it had found.
    @Test func aConnectionSharedWithoutItsCountIsShownTheWholeForm() {
        let group = "devices:\n  - name: d\n    topic: t\n    publish: 1/s\n    payload: { fields: { x: { sine: { period: 1h } } } }\n"
        #expect(
            problems(group + "    connection: shared") == [
                "test.yaml:6:17: expected perDevice or { shared: N } for 'connection', found 'shared'; "
                    + "write { shared: N }, N the connections the group's devices share"
            ])
        #expect(problems(group + "    connection: perDevise").first?.hasSuffix("did you mean 'perDevice'?") == true)
    }

    @Test func aFieldTakesOneGenerator() {
        #expect(
            problems(device(fields: "        T: { uuid: {}, sine: {} }")) == [
                "test.yaml:7:24: field 'T' has a second generator 'sine' after 'uuid'; a field takes exactly one"
            ])
    }

    @Test func misspeltModifier() {
        #expect(
            problems(device(fields: "        T: { sine: {}, nosie: 0.1 }")) == [
                "test.yaml:7:24: unknown modifier 'nosie' in field 'T'; did you mean 'noise'?"
            ])
    }

    @Test func anUnknownKeyBesideAGeneratorIsNoGenerator() {
        #expect(
            problems(device(fields: "        T: { sine: {}, colour: red }")) == [
                "test.yaml:7:24: unknown key 'colour' in field 'T'; besides its generator a field takes only the modifiers "
                    + "decimals, noise, min, max, faults, unit, deviceClass, stateClass, command"
            ])
    }

    @Test func unknownParameterGetsAHintFromTheAskedKeys() {
        #expect(
            problems(device(fields: "        T: { sine: { perod: 1h, min: 0 } }")) == [
                "test.yaml:7:22: unknown parameter 'perod' for sine; did you mean 'period'?"
            ])
    }

    @Test func parameterErrorsPointAtTheirValue() {
        #expect(
            problems(device(fields: "        T: { sine: { min: low, period: 0s } }")) == [
                "test.yaml:7:27: expected a number for 'min', found 'low'"
            ])
        #expect(
            problems(device(fields: "        T: { sine: { period: 0s } }")) == [
                "test.yaml:7:30: expected a period above zero"
            ])
        #expect(
            problems(device(fields: "        T: { accelerometer: w }")) == [
                "test.yaml:7:29: expected x, y or z for the axis, found 'w'"
            ])
    }

    @Test func keylessParameterErrorPointsAtTheGenerator() {
        #expect(
            problems(device(fields: "        T: { accelerometer: {} }")) == [
                "test.yaml:7:29: expected an axis: x, y or z"
            ])
    }

    @Test func shorthandTheGeneratorDoesNotRead() {
        #expect(
            problems(device(fields: "        T: { sine: 5 }")) == [
                "test.yaml:7:20: sine takes no single value; give its parameters as a mapping: min, max, period, phase"
            ])
    }

    @Test func listValueIsRefused() {
        #expect(
            problems(device(fields: "        T: { uuid: [1] }")) == [
                "test.yaml:7:20: expected the parameters of uuid as a mapping, or a single value, found a list"
            ])
    }

    @Test func minMustNotExceedMax() {
        #expect(
            problems(device(fields: "        T: { uuid: {}, min: 5, max: 1 }")) == [
                "test.yaml:7:37: expected 'max' (1) to be at least 'min' (5) in field 'T'"
            ])
    }

    @Test func modifiersAreRead() throws {
        let scenario = try load(device(fields: "        T: { sine: { min: 18, max: 26, period: 24h }, noise: 0.1, decimals: 1 }"))
        let field = try #require(scenario.groups.first?.payload.fields.first)
        #expect(field.decimals == 1)
        #expect(field.noise == 0.1)
        #expect(field.min == nil)
        let sine = try #require(field.generator as? TestSine)
        #expect(sine == TestSine(min: 18, max: 26, period: 86400))
    }

    /// Independent of which generators Signals has: whatever the registry lacks is reported as unknown.
    @Test func theStandardRegistryIsWhatTheLoaderAsks() {
        let text = device(fields: "        T: { notAGenerator: 1 }")
        do {
            _ = try ScenarioLoader.load(text: text, file: "s.yaml", environment: [:])
            Issue.record("an unknown generator must not load")
        } catch {
            #expect(error.diagnostics.count == 1)
            #expect(error.diagnostics.first?.message.hasPrefix("unknown generator 'notAGenerator'") == true)
        }
    }

    /// Runs once the real generators are in Signals (they are not on the scenario branch).
    @Test(.enabled(if: Generators.keys.contains("accelerometer")))
    func realAccelerometerLoads() throws {
        let scenario = try ScenarioLoader.load(text: minimalDevices, file: "s.yaml", environment: [:])
        #expect(scenario.groups.first?.payload.fields.map(\.name) == ["X"])
    }
}

extension TestSine {
    init(min: Double, max: Double, period: Double) {
        self.min = min
        self.max = max
        self.period = period
    }
}

@Suite struct SampleRateBoundTests {
    @Test func samplingFarFasterThanPublishingIsRefused() {
        let text = """
            devices:
              - name: d
                topic: t
                sample: 1000Hz
                publish: 1/200s
                payload:
                  fields:
                    v: { sine: {} }
            """
        #expect(
            problems(text) == [
                "test.yaml:4:13: device group 'd' samples more than 100000 times per publish; sample less often or publish more often"
            ])
    }
}
