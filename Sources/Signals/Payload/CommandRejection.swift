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

    package static func == (lhs: CommandRejection, rhs: CommandRejection) -> Bool { lhs.reason == rhs.reason }
}
