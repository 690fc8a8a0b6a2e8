@testable import Scenario
import Signals

// Stand-ins for generators: they read parameters the way real ones do, so field loading is tested
// independently of what `Generators.all` holds. They never produce values.

struct TestSine: GeneratorRecipe, Equatable {
    static let key = "sine"
    var min: Double, max: Double, period: Double

    init(parameters: any ParameterSource) throws(ParameterError) {
        min = try parameters.number("min") ?? -1
        max = try parameters.number("max") ?? 1
        period = try parameters.duration("period") ?? 60
        _ = try parameters.number("phase")
        guard period > 0 else { throw ParameterError(key: "period", "expected a period above zero") }
    }
}

struct TestAccelerometer: GeneratorRecipe, Equatable {
    static let key = "accelerometer"
    var axis: String

    init(parameters: any ParameterSource) throws(ParameterError) {
        let shorthand = parameters.shorthand
        let named = try parameters.string("axis")
        guard let axis = shorthand ?? named else {
            throw ParameterError(key: nil, "expected an axis: x, y or z")
        }
        guard ["x", "y", "z"].contains(axis) else {
            throw ParameterError(key: shorthand == nil ? "axis" : nil, "expected x, y or z for the axis, found '\(axis)'")
        }
        self.axis = axis
    }
}

struct TestUUID: GeneratorRecipe {
    static let key = "uuid"
    init(parameters: any ParameterSource) throws(ParameterError) {}
}

/// The stand-ins are loaded, never run.
private struct NoValue: FieldGenerator {
    func value(at instant: PublishInstant) -> SignalValue { .null }
}

extension TestSine { func makeGenerator(context: GeneratorContext) -> any FieldGenerator { NoValue() } }
extension TestAccelerometer { func makeGenerator(context: GeneratorContext) -> any FieldGenerator { NoValue() } }
extension TestUUID { func makeGenerator(context: GeneratorContext) -> any FieldGenerator { NoValue() } }

extension GeneratorRegistry {
    static let testTypes: [any GeneratorRecipe.Type] = [TestSine.self, TestAccelerometer.self, TestUUID.self]

    static var test: GeneratorRegistry {
        GeneratorRegistry(keys: testTypes.map { $0.key }) { key, parameters throws(ParameterError) in
            guard let type = testTypes.first(where: { $0.key == key }) else { return nil }
            return try type.init(parameters: parameters)
        }
    }
}

/// Loads with the test generators.
func load(_ text: String, file: String = "test.yaml", environment: [String: String] = [:]) throws(ScenarioError) -> Scenario {
    try ScenarioLoader.load(bytes: Array(text.utf8), file: file, environment: environment, generators: .test)
}

/// The diagnostics of a scenario that must fail, as `FILE:LINE:COLUMN: message` lines.
func problems(_ text: String, file: String = "test.yaml", environment: [String: String] = [:]) -> [String] {
    do {
        _ = try load(text, file: file, environment: environment)
        return ["loaded without errors"]
    } catch {
        return error.diagnostics.map(\.description)
    }
}

/// A valid device group to build test scenarios around.
let minimalDevices = """
    devices:
      - name: phone
        topic: t
        publish: 1/s
        payload:
          fields:
            X: { accelerometer: x }
    """

/// The end of an unknown-generator message under the test generators: the list of them.
let generatorList = GeneratorRegistry.testTypes.map { $0.key }.joined(separator: ", ") + ")"
