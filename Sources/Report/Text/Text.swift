import Signals

/// The few text helpers devsim needs beyond the standard library, so that no target imports all
/// of Foundation (FoundationEssentials has none of these) and the static binary stays small.
public enum Text {
    /// `text` without leading and trailing spaces, tabs and newlines.
    public static func trimmed<S: StringProtocol>(_ text: S) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0.isNewline }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
            let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first...last])
    }

    /// `count` and `noun`, the noun in the plural unless `count` is 1: "1 device group",
    /// "3 device groups". `plural` for a noun that takes more than an s.
    public static func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }

    /// `value` with exactly `decimals` digits after the point, as `String(format: "%.3f")` would
    /// write it (rounding half away from zero; never `-0.000`).
    public static func fixed(_ value: Double, decimals: Int) -> String {
        var bytes = PayloadBuffer()
        JSONWriter.writeNumber(value, decimals: decimals, into: &bytes)
        return bytes.text
    }
}
