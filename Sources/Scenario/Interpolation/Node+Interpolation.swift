extension Node {
    /// The tree with `${...}` filled in every scalar value. Keys are left alone: they name schema
    /// entries, and a key that changed with the environment would change the schema.
    /// A scalar keeps its style, so a plain `${PORT}` can still be read as a number.
    func interpolated(
        _ environment: [String: String],
        problems: inout [(mark: Mark, message: String)]
    ) -> Node {
        switch kind {
        case .scalar(let text, let style):
            do {
                let expanded = try Interpolation.expand(text, environment: environment)
                return Node(kind: .scalar(expanded, style), mark: mark)
            } catch {
                problems.append((mark, error.message))
                return self
            }
        case .sequence(let items):
            return Node(kind: .sequence(items.map { $0.interpolated(environment, problems: &problems) }), mark: mark)
        case .mapping(let pairs):
            let filled = pairs.map {
                Node.Pair(key: $0.key, value: $0.value.interpolated(environment, problems: &problems))
            }
            return Node(kind: .mapping(filled), mark: mark)
        }
    }
}
