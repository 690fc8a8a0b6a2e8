/// Placeholder until the scenario module's quantity parser is merged.
enum DurationText {
    static func seconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)) { return value * factor }
        }
        return Double(text)
    }
}
