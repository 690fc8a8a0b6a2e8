import Signals

extension ScenarioReader {
    /// A payload's fields with their formulas checked together and compiled
    /// (`PayloadFormulas.check`); `nil` when one has a problem, reported at the column of the
    /// formula's token it is about, or at the modifier it names.
    func formulas(_ fields: [FieldSpec], in fieldsNode: Node) -> [FieldSpec]? {
        let (checked, problems) = PayloadFormulas.check(fields, closest: Suggestion.closest)
        for problem in problems {
            let field = Self.field(at: problem.field, in: fieldsNode)
            if let key = problem.key, let pair = field.flatMap({ Self.pair(key, in: $0) }) {
                report(pair.key.mark, problem.message)
            } else {
                let expression = field.flatMap { Self.pair(FormulaRecipe.key, in: $0)?.value }
                report(expression.map { mark(of: problem.offset, in: $0) } ?? field?.mark ?? fieldsNode.mark, problem.message)
            }
        }
        return problems.isEmpty ? checked : nil
    }

    /// The mapping of the field at `path` (its name, or its dotted path through groups) under
    /// a payload's or a group's `fields`.
    private static func field(at path: String, in fields: Node, prefix: String = "") -> Node? {
        guard case .mapping(let pairs) = fields.kind else { return nil }
        for pair in pairs {
            guard let name = pair.key.scalarText.map({ prefix + $0 }) else { continue }
            if name == path { return pair.value }
            if path.hasPrefix(name + "."), let members = Self.pair(groupKey, in: pair.value)?.value,
                let found = field(at: path, in: members, prefix: name + ".")
            {
                return found
            }
        }
        return nil
    }

    private static func pair(_ key: String, in mapping: Node) -> Node.Pair? {
        guard case .mapping(let pairs) = mapping.kind else { return nil }
        return pairs.first { $0.key.scalarText == key }
    }
}
