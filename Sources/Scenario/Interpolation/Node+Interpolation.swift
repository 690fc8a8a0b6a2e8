extension Node {
    /// The tree with `${...}` filled in every scalar value. Keys are left alone: they name schema
    /// entries, and a key that changed with the environment would change the schema.
    /// A scalar keeps its style, so a plain `${PORT}` can still be read as a number.
    ///
    /// What a value of the environment brings is data: its place is kept (`verbatim`), and no
    /// template reads a brace of it as a placeholder (`templateText`).
    ///
    /// The entries at the dotted paths of `overridden` (`broker.host`) are left out, unread: the
    /// command line gives their values, so a `${BROKER_HOST}` there need not be set. `path` is
    /// this node's.
    func interpolated(
        _ environment: [String: String], leavingOut overridden: Set<String> = [], at path: String = "",
        problems: inout [(mark: Mark, message: String)]
    ) -> Node {
        switch kind {
        case .scalar(let text, let style):
            do {
                let expanded = try Interpolation.expandMarking(text, environment: environment)
                return Node(kind: .scalar(expanded.text, style), mark: mark, verbatim: expanded.values)
            } catch {
                problems.append((mark, error.message))
                return self
            }
        case .sequence(let items):
            let items = items.map { $0.interpolated(environment, leavingOut: overridden, at: path + "[]", problems: &problems) }
            return Node(kind: .sequence(items), mark: mark)
        case .mapping(let pairs):
            let filled = pairs.compactMap { pair -> Node.Pair? in
                let key = pair.key.scalarText.map { path.isEmpty ? $0 : path + "." + $0 }
                if let key, overridden.contains(key) { return nil }
                let value = pair.value.interpolated(environment, leavingOut: overridden, at: key ?? path, problems: &problems)
                return Node.Pair(key: pair.key, value: value)
            }
            return Node(kind: .mapping(filled), mark: mark)
        }
    }
}
