/// The checks most recipes share, so that their error messages read alike.
extension ParameterSource {
    /// Throws when a scalar was given to a generator that only takes a map.
    func rejectShorthand(_ generator: String, expecting: String) throws(ParameterError) {
        if let shorthand {
            throw ParameterError(key: nil, "\(generator) takes a map with \(expecting), found '\(shorthand)'")
        }
    }

    /// A finite number, or `nil` when absent.
    func finiteNumber(_ key: String) throws(ParameterError) -> Double? {
        guard let value = try number(key) else { return nil }
        guard value.isFinite else { throw ParameterError(key: key, "\(key) must be a finite number") }
        return value
    }

    func requiredNumber(_ key: String) throws(ParameterError) -> Double {
        guard let value = try finiteNumber(key) else { throw ParameterError(key: key, "\(key) is required") }
        return value
    }

    /// `min` and `max`, both required, with `min < max`.
    func requiredRange() throws(ParameterError) -> (min: Double, max: Double) {
        let min = try requiredNumber("min")
        let max = try requiredNumber("max")
        guard min < max else {
            throw ParameterError(key: "max", "max must be greater than min (\(min))")
        }
        return (min, max)
    }
}
