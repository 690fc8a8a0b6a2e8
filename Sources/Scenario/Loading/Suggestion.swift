/// "Did you mean" hints: the candidate closest to a misspelt word, when one is close enough.
public enum Suggestion {
    /// The closest candidate by edit distance (ignoring case, a swap of neighbours counting once),
    /// or else the one candidate that begins with the word, of three letters or more (`user`
    /// for `username`, `cert` for `certificate`); `nil` when none is near enough to be a likely
    /// typo or a shortening.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        if let typo = closestByEdits(to: word, among: candidates) { return typo }
        guard word.count >= 3 else { return nil }
        let longer = candidates.filter { $0.lowercased().hasPrefix(word.lowercased()) }
        return longer.count == 1 ? longer[0] : nil
    }

    private static func closestByEdits(to word: String, among candidates: [String]) -> String? {
        // Each edit changes the length by one at most, so a word more than three characters
        // longer than every candidate is near none; saying so at once keeps a megabyte-long word
        // from costing a megabyte of work per candidate.
        let longest = candidates.map(\.count).max() ?? 0
        guard word.prefix(longest + 4).count <= longest + 3 else { return nil }
        let target = Array(word.lowercased())
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        // Short words differ in every letter after two edits; allow fewer there.
        let allowed = target.count <= 3 ? 1 : target.count <= 8 ? 2 : 3
        return best.distance <= allowed ? best.candidate : nil
    }

    /// `; did you mean 'x'?` or nothing.
    static func hint(for word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Optimal string alignment distance.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
