/// A value a command carries for a field, as JSON gives it or a bare payload reads.
package enum CommandValue: Sendable, Equatable {
    case number(Double)
    case bool(Bool)
    case text(String)

    /// A bare payload (`ON`, `22.5`, `heat`), as Home Assistant sends to a field's own topic.
    package init(bare text: String) {
        if let number = Double(text), number.isFinite {
            self = .number(number)
        } else if text == "true" || text == "false" {
            self = .bool(text == "true")
        } else {
            self = .text(text)
        }
    }

    package var words: String {
        switch self {
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .bool(let value): String(value)
        case .text(let text): "'\(text)'"
        }
    }
}
