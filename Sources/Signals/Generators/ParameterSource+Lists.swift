/// List parameters shared by `choice`, `sequence` and their kin.
extension ParameterSource {
    /// A non-empty list of scalars, each keeping its type; required.
    func requiredValues(_ key: String) throws(ParameterError) -> [SignalValue] {
        guard let values = try scalars(key) else { throw ParameterError(key: key, "\(key) is required: a list of values") }
        guard !values.isEmpty else { throw ParameterError(key: key, "\(key) must list at least one value") }
        return values
    }

    /// A list of finite numbers, or `nil` when absent.
    func numbers(_ key: String) throws(ParameterError) -> [Double]? {
        guard let texts = try strings(key) else { return nil }
        var numbers: [Double] = []
        numbers.reserveCapacity(texts.count)
        for text in texts {
            guard let number = Double(text), number.isFinite else {
                throw ParameterError(key: key, "\(key) must be a list of numbers, found '\(text)'")
            }
            numbers.append(number)
        }
        return numbers
    }

    /// A probability in [0, 1], or `nil` when absent.
    func probability(_ key: String) throws(ParameterError) -> Double? {
        guard let value = try finiteNumber(key) else { return nil }
        guard (0...1).contains(value) else { throw ParameterError(key: key, "\(key) must be from 0 to 1, found \(value)") }
        return value
    }
}
