/// Sizes in bytes: `100B`, `512KB`, `64MB`, `1GB`, or a bare number of bytes.
///
/// `KB`, `MB` and `GB` are 1024 multiples, as memory is counted; `KiB`, `MiB` and `GiB` mean the
/// same and are accepted too. Units are case-insensitive (`64mb`).
package enum Sizes {
    static let expected = "a size such as 512KB, 64MB or 1GB"

    private static let units: [String: Double] = [
        "": 1, "b": 1,
        "k": 1024, "kb": 1024, "kib": 1024,
        "m": 1024 * 1024, "mb": 1024 * 1024, "mib": 1024 * 1024,
        "g": 1024 * 1024 * 1024, "gb": 1024 * 1024 * 1024, "gib": 1024 * 1024 * 1024,
    ]

    /// The size in whole bytes (fractions round down); zero is allowed, negative is not.
    package static func parse(_ text: String) throws(QuantityError) -> Int {
        guard let (number, unit) = DecimalText.split(Substring(text)),
            let scale = units[unit.lowercased()]
        else {
            throw QuantityError(expected: expected, found: text)
        }
        let bytes = (number * scale).rounded(.down)
        guard bytes >= 0, bytes < Double(Int.max) else {
            throw QuantityError(expected: expected, found: text)
        }
        return Int(bytes)
    }
}
