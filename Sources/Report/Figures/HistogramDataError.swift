/// Why a report's raw histogram cannot be read back.
package struct HistogramDataError: Error, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
