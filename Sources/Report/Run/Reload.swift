/// One reload, as the report lists it: when, and what it did to which groups, or why it did
/// nothing.
public struct Reload: Codable, Sendable, Equatable {
    /// Seconds from the start of the run.
    public var atSeconds: Double
    public var added: [String] = []
    public var removed: [String] = []
    public var changed: [String] = []
    /// Groups whose devices were added or taken away, and nothing else.
    public var scaled: [String] = []
    public var unchanged: [String] = []
    /// Why the reload left the fleet as it was: the files' errors, or a change it could not make.
    public var error: String? = nil

    package init(
        atSeconds: Double, added: [String] = [], removed: [String] = [], changed: [String] = [], scaled: [String] = [],
        unchanged: [String] = [], error: String? = nil
    ) {
        self.atSeconds = atSeconds
        self.added = added
        self.removed = removed
        self.changed = changed
        self.scaled = scaled
        self.unchanged = unchanged
        self.error = error
    }

    /// The groups by what happened to them, in a line.
    package var summary: String {
        let parts = [("added", added), ("removed", removed), ("changed", changed), ("scaled", scaled), ("unchanged", unchanged)]
            .filter { !$0.1.isEmpty }.map { "\($0.0) \($0.1.joined(separator: ", "))" }
        return parts.isEmpty ? "no device groups" : parts.joined(separator: "; ")
    }
}
