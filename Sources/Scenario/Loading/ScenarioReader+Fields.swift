import Signals

extension ScenarioReader {
    static let modifiers = ["decimals", "noise", "min", "max"]

    /// One payload field: exactly one generator key, found through the generator registry (the
    /// `Generators` of Signals), plus modifiers.
    func field(_ key: Node, _ node: Node) -> FieldSpec? {
        let name = key.scalarText ?? ""
        let problemsBefore = diagnostics.count
        guard let pairs = pairs(node, of: "field '\(name)'") else { return nil }
        var found: [(key: Node, recipe: (any GeneratorRecipe)?)] = []
        var unknown: [Node] = []
        var modifiers = Entries(mark: node.mark)
        for pair in pairs {
            guard let text = pair.key.scalarText else { continue }
            if Self.modifiers.contains(text) {
                modifiers.values[text] = pair.value
            } else {
                switch generator(text, pair.value) {
                case .unknown: unknown.append(pair.key)
                case .invalid: found.append((pair.key, nil))
                case .valid(let recipe): found.append((pair.key, recipe))
                }
            }
        }
        for key in unknown { reportUnknown(key, in: name, afterGenerator: !found.isEmpty) }
        if found.isEmpty && unknown.isEmpty {
            let known = generators.keys.isEmpty ? "" : ": one of " + generators.keys.joined(separator: ", ")
            report(node.isNull ? key.mark : node.mark, "field '\(name)' needs a generator\(known)")
        }
        for extra in found.dropFirst() {
            report(extra.key.mark, "field '\(name)' has a second generator '\(extra.key.scalarText ?? "")' after '\(found[0].key.scalarText ?? "")'; a field takes exactly one")
        }

        let decimals = integer(modifiers["decimals"], "decimals", in: 0...15)
        let noise = number(modifiers["noise"], "noise", atLeast: 0)
        let min = number(modifiers["min"], "min")
        let max = number(modifiers["max"], "max")
        if let min, let max, min > max, let maxNode = modifiers["max"] {
            report(maxNode.mark, "expected 'max' (\(Self.trimmed(max))) to be at least 'min' (\(Self.trimmed(min))) in field '\(name)'")
        }
        guard found.count == 1, let recipe = found[0].recipe, diagnostics.count == problemsBefore else {
            return nil
        }
        return FieldSpec(name: name, generator: recipe, decimals: decimals, noise: noise, min: min, max: max)
    }

    private enum Lookup {
        case unknown
        /// A generator, but its parameters are wrong; already reported.
        case invalid
        case valid(any GeneratorRecipe)
    }

    /// Asks the registry for the generator `key` and checks that it used every parameter given.
    private func generator(_ key: String, _ value: Node) -> Lookup {
        let parameters = NodeParameters(value, resolve: resolve)
        let recipe: (any GeneratorRecipe)?
        do {
            recipe = try generators.recipe(key, parameters)
        } catch {
            if !isList(value, of: key) { report(parameters.mark(for: error.key), error.message) }
            return .invalid
        }
        guard let recipe else { return .unknown }
        guard !isList(value, of: key) else { return .invalid }
        var valid = true
        for pair in parameters.pairs {
            guard let name = pair.key.scalarText, !parameters.asked.contains(name) else { continue }
            valid = false
            let takes = parameters.asked.isEmpty
                ? "; \(key) takes no parameters"
                : Suggestion.closest(to: name, among: parameters.asked).map { "; did you mean '\($0)'?" }
                    ?? "; \(key) takes: " + parameters.asked.joined(separator: ", ")
            report(pair.key.mark, "unknown parameter '\(name)' for \(key)\(takes)")
        }
        if case .scalar = value.kind, !value.isNull, !parameters.shorthandRead {
            valid = false
            let takes = parameters.asked.isEmpty ? "it takes no parameters"
                : "give its parameters as a mapping: " + parameters.asked.joined(separator: ", ")
            report(value.mark, "\(key) takes no single value; \(takes)")
        }
        return valid ? .valid(recipe) : .invalid
    }

    private func isList(_ value: Node, of key: String) -> Bool {
        guard case .sequence = value.kind else { return false }
        report(value.mark, "expected the parameters of \(key) as a mapping, or a single value, found a list")
        return true
    }

    private func reportUnknown(_ key: Node, in field: String, afterGenerator: Bool) {
        let text = key.scalarText ?? ""
        let hint = Suggestion.closest(to: text, among: generators.keys + Self.modifiers)
        if let hint, Self.modifiers.contains(hint) {
            report(key.mark, "unknown modifier '\(text)' in field '\(field)'; did you mean '\(hint)'?")
        } else if let hint {
            report(key.mark, "unknown generator '\(text)'; did you mean '\(hint)'?")
        } else if afterGenerator {
            report(key.mark, "unknown key '\(text)' in field '\(field)'; besides its generator a field takes only the modifiers \(Self.modifiers.joined(separator: ", "))")
        } else {
            let known = generators.keys.isEmpty ? "" : "; expected one of: " + generators.keys.joined(separator: ", ")
            report(key.mark, "unknown generator '\(text)'\(known)")
        }
    }
}
