/// Where a generator reads its parameters from. The scenario loader implements it over YAML nodes,
/// so a generator never sees YAML and every error it throws can still point at a line and column.
///
/// Each accessor returns `nil` when the key is absent and throws `ParameterError` naming the key
/// when the value has the wrong type. Keys a generator never asks for are reported as unknown by
/// the loader.
package protocol ParameterSource {
    /// The scalar given instead of a map (`accelerometer: x`, `constant: 5`), if any.
    var shorthand: String? { get }
    func number(_ key: String) throws(ParameterError) -> Double?
    func integer(_ key: String) throws(ParameterError) -> Int?
    func string(_ key: String) throws(ParameterError) -> String?
    func bool(_ key: String) throws(ParameterError) -> Bool?
    /// A duration such as `250ms`, `24h`, or a plain number of seconds; in seconds.
    func duration(_ key: String) throws(ParameterError) -> Double?
    /// A size in bytes such as `64KB` (1,024 bytes a KB), or a plain number of bytes.
    func size(_ key: String) throws(ParameterError) -> Int?
    /// `text` read as a size, as `size` reads a key's value (a shorthand's); `nil` when it is none.
    func size(of text: String) -> Int?
    /// A list of scalars, as strings.
    func strings(_ key: String) throws(ParameterError) -> [String]?
    /// A list of durations (`[2m, 5s]`, or plain numbers of seconds), in seconds.
    func durations(_ key: String) throws(ParameterError) -> [Double]?
    /// A list of scalars, each keeping its type: a plain number is a number, `true`/`false` a
    /// boolean, anything else (a quoted `"5"` too) a string.
    func scalars(_ key: String) throws(ParameterError) -> [SignalValue]?
    /// A file path, made relative to the scenario file's directory rather than the directory
    /// devsim runs in; absolute paths are returned unchanged.
    func path(_ key: String) throws(ParameterError) -> String?
    /// Where the text of `key`, or the shorthand's for `nil`, holds values of the environment
    /// (`${LABEL}`), as offsets of its UTF-8 bytes: data, in which no placeholder is filled.
    func environmentValues(_ key: String?) -> [Range<Int>]
}

extension ParameterSource {
    /// For sources that cannot tell quoted from plain text: each item is read the way a scalar
    /// shorthand is (`ConstantRecipe.interpret`).
    package func scalars(_ key: String) throws(ParameterError) -> [SignalValue]? {
        try strings(key).map { $0.map(ConstantRecipe.interpret) }
    }

    /// For sources without the scenario's units: a plain number of bytes.
    package func size(_ key: String) throws(ParameterError) -> Int? {
        try integer(key)
    }

    package func size(of text: String) -> Int? {
        Int(text)
    }

    /// For sources without the environment's values: none.
    package func environmentValues(_ key: String?) -> [Range<Int>] { [] }

    /// For sources with no file behind them: the path as given.
    package func path(_ key: String) throws(ParameterError) -> String? {
        try string(key)
    }
}

/// A generator parameter that is missing, of the wrong type or out of range.
package struct ParameterError: Error, Sendable, Equatable {
    /// The parameter's key; `nil` when the error is about the generator's value as a whole.
    package var key: String?
    package var message: String
    /// The character of the value the problem is at (in Unicode scalars, from 0), for a value
    /// read as a language of its own (a formula); `nil` for the value as a whole.
    package var offset: Int?

    package init(key: String?, _ message: String, offset: Int? = nil) {
        self.key = key
        self.message = message
        self.offset = offset
    }
}
