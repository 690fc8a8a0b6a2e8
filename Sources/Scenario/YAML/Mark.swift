/// A place in a scenario file; 1-based, as editors count.
struct Mark: Sendable, Hashable, Comparable {
    var line: Int
    var column: Int

    static func < (a: Mark, b: Mark) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }
}
