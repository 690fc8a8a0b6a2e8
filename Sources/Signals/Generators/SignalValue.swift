/// One value a generator produces for a publish, before the field's modifiers and encoding.
package enum SignalValue: Sendable, Equatable {
    case number(Double)
    /// Printed as an integer: counters and epoch timestamps must not turn into `1.7e+12`.
    case integer(Int64)
    case bool(Bool)
    case string(String)
    /// Milliseconds since the Unix epoch, written as an ISO 8601 UTC string.
    case utcTimestamp(milliseconds: Int64)
    case null
}
