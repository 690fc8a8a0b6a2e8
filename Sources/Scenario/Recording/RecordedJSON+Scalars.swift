extension RecordedJSON {
    /// A scalar of a payload (string, number, true, false, null) with its path and bytes: where a
    /// replay finds the timestamps to rewrite. A path names members by key (`.ts`, `.meta.time`)
    /// and an array's items alike (`.readings[]`), so the messages of a topic share their paths.
    package struct Scalar: Sendable, Equatable {
        package var path: String
        /// A string's with its quotes.
        package var range: Range<Int>
    }

    /// Every scalar of `bytes`, in order; `nil` when `bytes` is not one JSON value.
    package static func scalars(_ bytes: [UInt8]) -> [Scalar]? {
        guard let (value, ranges) = read(bytes) else { return nil }
        var paths: [String] = []
        value.collectPaths(path: "", into: &paths)
        // The reader records a range per scalar in the order this walk visits them.
        return zip(paths, ranges).map { Scalar(path: $0, range: $1) }
    }

    private func collectPaths(path: String, into paths: inout [String]) {
        switch self {
        case .object(let members):
            for member in members { member.value.collectPaths(path: path + "." + member.key, into: &paths) }
        case .array(let items):
            for item in items { item.collectPaths(path: path + "[]", into: &paths) }
        case .string, .number, .bool, .null:
            paths.append(path)
        }
    }
}
