import Foundation

/// A text with `{name}`, `{index}` and `{id}` placeholders, filled per device.
public struct Template: Sendable, Equatable {
    public var source: String

    public init(_ source: String) {
        self.source = source
    }

    /// The text with every placeholder replaced; `id` is `nil` while the id itself is being made.
    public func render(name: String, index: Int, id: String?) -> String {
        var result = source.replacingOccurrences(of: "{name}", with: name)
        result = result.replacingOccurrences(of: "{index}", with: String(index))
        if let id { result = result.replacingOccurrences(of: "{id}", with: id) }
        return result
    }
}
