/// Why a reload or a scale left the fleet as it was.
struct FleetChangeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
