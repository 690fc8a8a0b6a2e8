import Mosquitto
import Report

extension Refusals {
    /// Counts `count` refusals for `code`, in libmosquitto's words for it: the report holds the
    /// words as text, since it knows no libmosquitto.
    package mutating func add(_ code: UInt8, _ count: Int) {
        // Most codes count none, and every reading of the totals adds each.
        guard count != 0 else { return }
        add(code, count, reason: ReasonCode(rawValue: code).words)
    }
}
