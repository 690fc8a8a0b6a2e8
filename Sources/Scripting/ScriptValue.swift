/// A value crossing between devsim and a script: a field's, a command's, a message's part.
package enum ScriptValue: Sendable, Equatable {
    case number(Double)
    case integer(Int64)
    case bool(Bool)
    case string([UInt8])
    /// A table by its string keys (a group of fields, a message), in no order.
    case table([String: ScriptValue])
    /// A list: a table whose keys are 1…n.
    case list([ScriptValue])
    case null

    package static func text(_ text: String) -> ScriptValue { .string(Array(text.utf8)) }

    /// The text of a string, `nil` for any other value.
    package var text: String? {
        if case .string(let bytes) = self { String(decoding: bytes, as: UTF8.self) } else { nil }
    }

    /// A number's value, `nil` for any other.
    package var number: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// What Lua calls the value's type, for a message that says what a hook gave.
    package var typeName: String {
        switch self {
        case .number, .integer: "number"
        case .bool: "boolean"
        case .string: "string"
        case .table, .list: "table"
        case .null: "nil"
        }
    }
}
