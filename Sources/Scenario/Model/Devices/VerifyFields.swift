import Signals

/// `verify: { sequence: seq, timestamp: ts }`: the payload fields the closed-loop check of
/// `run --verify` reads: a `counter` numbering the messages, and a `timestamp` (s, ms, us or ns)
/// of when each was made. A field may sit in a nested object; the first field of that name in
/// the payload is the one read.
public struct VerifyFields: Sendable, Equatable {
    package var sequence: String
    package var timestamp: String

    public static let defaultSequence = "seq"
    public static let defaultTimestamp = "ts"

    public init(sequence: String = VerifyFields.defaultSequence, timestamp: String = VerifyFields.defaultTimestamp) {
        self.sequence = sequence
        self.timestamp = timestamp
    }

    /// The first field called `name`, depth first in payload order, nested objects included:
    /// the one whose `"name":` comes first in the encoded payload.
    package static func field(named name: String, in fields: [FieldSpec]) -> FieldSpec? {
        for field in fields {
            if field.name == name, field.generator != nil { return field }
            if let members = field.fields, let found = Self.field(named: name, in: members) { return found }
        }
        return nil
    }
}
