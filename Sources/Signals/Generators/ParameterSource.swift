/// Where a generator reads its parameters from. The scenario loader implements it over YAML nodes,
/// so a generator never sees YAML and every error it throws can still point at a line and column.
///
/// Each accessor returns `nil` when the key is absent and throws `ParameterError` naming the key
/// when the value has the wrong type. Keys a generator never asks for are reported as unknown by
/// the loader.
public protocol ParameterSource {
    /// The scalar given instead of a map (`accelerometer: x`, `constant: 5`), if any.
    var shorthand: String? { get }
    func number(_ key: String) throws(ParameterError) -> Double?
    func integer(_ key: String) throws(ParameterError) -> Int?
    func string(_ key: String) throws(ParameterError) -> String?
    func bool(_ key: String) throws(ParameterError) -> Bool?
    /// A duration such as `250ms`, `24h`, or a plain number of seconds; in seconds.
    func duration(_ key: String) throws(ParameterError) -> Double?
    /// A list of scalars, as strings.
    func strings(_ key: String) throws(ParameterError) -> [String]?
}

/// A generator parameter that is missing, of the wrong type or out of range.
public struct ParameterError: Error, Sendable, Equatable {
    /// The parameter's key; `nil` when the error is about the generator's value as a whole.
    public var key: String?
    public var message: String

    public init(key: String?, _ message: String) {
        self.key = key
        self.message = message
    }
}
