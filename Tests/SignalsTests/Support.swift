import Testing
import Signals

/// The recipe `key` from `parameters`, failing the test when it throws.
func recipe(_ key: String, _ parameters: TestParameters) throws -> any GeneratorRecipe {
    try #require(try Generators.recipe(named: key, parameters: parameters))
}

/// The error `key` throws for `parameters`, or `nil` when it builds.
func parameterError(_ key: String, _ parameters: TestParameters) -> ParameterError? {
    do {
        _ = try Generators.recipe(named: key, parameters: parameters)
        return nil
    } catch {
        return error
    }
}

/// Encodes publishes of one device, as the simulator would, returning each payload as text.
struct DeviceDriver {
    let signals: DeviceSignals

    init(
        _ fields: [FieldSpec], style: PayloadStyle = .milkcocoa, id: String = "phone-1", seed: UInt64 = 42,
        sampleInterval: Double? = nil
    ) {
        signals = DeviceSignals(
            payload: PayloadSpec(style: style, fields: fields), deviceID: id, index: 1,
            seed: seed, sampleInterval: sampleInterval)
    }

    mutating func publish(elapsed: Double = 0, wallClock: Double = 0) -> String {
        var buffer = PayloadBuffer()
        signals.encode(elapsed: elapsed, wallClock: wallClock, into: &buffer)
        return buffer.text
    }
}

/// The numbers of a flat payload, in key order: `{"a":1,"b":-2.5}` → [1, -2.5].
func numbers(in payload: String) -> [Double] {
    payload.dropFirst().dropLast().split(separator: ",").compactMap { pair in
        pair.split(separator: ":").last.flatMap { Double(String($0)) }
    }
}

func mean(_ values: [Double]) -> Double {
    values.reduce(0, +) / Double(values.count)
}

func standardDeviation(_ values: [Double]) -> Double {
    let average = mean(values)
    return (values.map { ($0 - average) * ($0 - average) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
}
