import Signals

extension ScenarioLoader {
    /// Why an isolated load names no file: the reason in "cannot include" and "cannot read".
    package static let isolatedReason = "this load reads no other files"

    /// Loads `bytes` as the file `file` without opening any other file: an `include` and a
    /// `replay` file are reported as errors instead. The fuzzer and the tests that replay its
    /// corpus load untrusted bytes this way, so that a fuzzed path such as `/dev/zero` or a
    /// FIFO cannot read forever or block, and no run depends on what lies on the disk.
    package static func loadIsolated(
        bytes: [UInt8], file: String,
        environment: [String: String]
    ) throws(ScenarioError) -> Scenario {
        let standard = GeneratorRegistry.standard
        let generators = GeneratorRegistry(keys: standard.keys) { key, parameters throws(ParameterError) in
            try standard.recipe(key, NoFileParameters(parameters))
        }
        return try load(
            bytes: bytes, file: file, environment: environment, generators: generators,
            readFile: { _ in .failure(LoadSession.FileProblem(reason: isolatedReason)) }, readsRecordings: false)
    }
}

/// Parameters that refuse every file path, once it has been checked as a path.
private struct NoFileParameters: ParameterSource {
    let parameters: any ParameterSource

    init(_ parameters: any ParameterSource) {
        self.parameters = parameters
    }

    var shorthand: String? { parameters.shorthand }
    func number(_ key: String) throws(ParameterError) -> Double? { try parameters.number(key) }
    func integer(_ key: String) throws(ParameterError) -> Int? { try parameters.integer(key) }
    func string(_ key: String) throws(ParameterError) -> String? { try parameters.string(key) }
    func bool(_ key: String) throws(ParameterError) -> Bool? { try parameters.bool(key) }
    func duration(_ key: String) throws(ParameterError) -> Double? { try parameters.duration(key) }
    func size(_ key: String) throws(ParameterError) -> Int? { try parameters.size(key) }
    func size(of text: String) -> Int? { parameters.size(of: text) }
    func strings(_ key: String) throws(ParameterError) -> [String]? { try parameters.strings(key) }
    func durations(_ key: String) throws(ParameterError) -> [Double]? { try parameters.durations(key) }
    func scalars(_ key: String) throws(ParameterError) -> [SignalValue]? { try parameters.scalars(key) }

    func path(_ key: String) throws(ParameterError) -> String? {
        guard let path = try parameters.path(key) else { return nil }
        throw ParameterError(key: key, "cannot read '\(path)': \(ScenarioLoader.isolatedReason)")
    }
}
