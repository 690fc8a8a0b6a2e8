/// Why a command changed nothing, in words; `reason` is the same for every device, so that a
/// log line once per reason says it.
package struct CommandRejection: Error, Sendable, Equatable {
    package var reason: String
    /// The reason without what the sender wrote: one log line for each, however many values.
    package var kind: String

    package init(_ reason: String, kind: String? = nil) {
        self.reason = reason
        self.kind = kind ?? reason
    }

    /// The kinds of a command that names no field, or one that takes none.
    package static let noSuchField = "a command names a field the device does not have"
    package static let noCommandedField = "a command names a field that takes none"

    /// The command names no field that takes one: an unknown method (Azure answers 404).
    package var namesNoCommandedField: Bool { kind == Self.noSuchField || kind == Self.noCommandedField }

    package static func == (lhs: CommandRejection, rhs: CommandRejection) -> Bool { lhs.reason == rhs.reason }
}
