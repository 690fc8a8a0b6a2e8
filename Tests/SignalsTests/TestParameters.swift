import Signals

/// A dictionary-backed `ParameterSource`, typed like a YAML node would be: asking for the wrong
/// type throws, as the scenario loader does.
struct TestParameters: ParameterSource {
    enum Value {
        case number(Double)
        case string(String)
        case bool(Bool)
        /// A duration written with a unit, in seconds: not a number.
        case duration(Double)
        case list([String])
    }

    var shorthand: String?
    var values: [String: Value]
    /// What relative paths are resolved against, as the scenario file's directory would be.
    var directory = ""

    init(shorthand: String) {
        self.shorthand = shorthand
        self.values = [:]
    }

    init(_ values: [String: Value] = [:]) {
        self.shorthand = nil
        self.values = values
    }

    func number(_ key: String) throws(ParameterError) -> Double? {
        switch values[key] {
        case nil: return nil
        case .number(let value): return value
        default: throw ParameterError(key: key, "\(key) must be a number")
        }
    }

    func integer(_ key: String) throws(ParameterError) -> Int? {
        guard let value = try number(key) else { return nil }
        guard let integer = Int(exactly: value) else { throw ParameterError(key: key, "\(key) must be an integer") }
        return integer
    }

    func string(_ key: String) throws(ParameterError) -> String? {
        switch values[key] {
        case nil: return nil
        case .string(let value): return value
        default: throw ParameterError(key: key, "\(key) must be a string")
        }
    }

    func bool(_ key: String) throws(ParameterError) -> Bool? {
        switch values[key] {
        case nil: return nil
        case .bool(let value): return value
        default: throw ParameterError(key: key, "\(key) must be true or false")
        }
    }

    func duration(_ key: String) throws(ParameterError) -> Double? {
        switch values[key] {
        case nil: return nil
        case .number(let seconds), .duration(let seconds): return seconds
        default: throw ParameterError(key: key, "\(key) must be a duration")
        }
    }

    func durations(_ key: String) throws(ParameterError) -> [Double]? {
        switch values[key] {
        case nil: return nil
        case .list(let value):
            let seconds = value.compactMap(Double.init)
            guard seconds.count == value.count else { throw ParameterError(key: key, "\(key) must be a list of durations") }
            return seconds
        default: throw ParameterError(key: key, "\(key) must be a list")
        }
    }

    func strings(_ key: String) throws(ParameterError) -> [String]? {
        switch values[key] {
        case nil: return nil
        case .list(let value): return value
        default: throw ParameterError(key: key, "\(key) must be a list")
        }
    }

    func path(_ key: String) throws(ParameterError) -> String? {
        guard let path = try string(key) else { return nil }
        return path.hasPrefix("/") ? path : directory + path
    }
}
