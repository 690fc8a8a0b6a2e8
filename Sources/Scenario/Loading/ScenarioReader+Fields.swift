import Signals

extension ScenarioReader {
    /// The key that makes a field a group of fields, written as a nested object.
    static let groupKey = "fields"

    /// One payload field: exactly one generator key, found through the generator registry (the
    /// `Generators` of Signals), plus modifiers; or a group, `{ fields: { ... } }`. Inside a group
    /// `parent` is the group's path, so that messages name `location.lat`.
    func field(_ key: Node, _ node: Node, in parent: String? = nil) -> FieldSpec? {
        let keyName = key.scalarText ?? ""
        let name = parent.map { $0 + "." + keyName } ?? keyName
        let problemsBefore = diagnostics.count
        guard let pairs = pairs(node, of: "field '\(name)'") else { return nil }
        if pairs.contains(where: { $0.key.scalarText == Self.groupKey }) {
            return group(keyName, path: name, pairs)
        }
        var found: [(key: Node, recipe: (any GeneratorRecipe)?)] = []
        var unknown: [Node] = []
        var modifiers = Entries(mark: node.mark)
        for pair in pairs {
            guard let text = pair.key.scalarText else { continue }
            if ScenarioKeys.modifiers.keys.contains(text) {
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
            report(
                extra.key.mark,
                "field '\(name)' has a second generator '\(extra.key.scalarText ?? "")' after '\(found[0].key.scalarText ?? "")'; a field takes exactly one"
            )
        }

        let decimals = integer(modifiers["decimals"], "decimals", in: 0...15)
        let noise = number(modifiers["noise"], "noise", atLeast: 0)
        let min = number(modifiers["min"], "min")
        let max = number(modifiers["max"], "max")
        if let min, let max, min > max, let maxNode = modifiers["max"] {
            report(maxNode.mark, "expected 'max' (\(Self.trimmed(max))) to be at least 'min' (\(Self.trimmed(min))) in field '\(name)'")
        }
        let faults = modifiers["faults"].map { self.faults($0, of: name) } ?? FieldFaults()
        let command = modifiers["command"].flatMap { fieldCommand($0, of: name, recipe: found.first?.recipe) }
        let entity = EntityHints(
            unit: string(modifiers["unit"], "unit"), deviceClass: string(modifiers["deviceClass"], "deviceClass"),
            stateClass: choice(modifiers["stateClass"], "stateClass", EntityHints.stateClasses))
        guard found.count == 1, let recipe = found[0].recipe, diagnostics.count == problemsBefore else {
            return nil
        }
        var spec = FieldSpec(
            name: keyName, generator: recipe, decimals: decimals, noise: noise, min: min, max: max,
            faults: faults)
        spec.entity = entity
        spec.command = command
        return spec
    }

    /// `command: set`, or `command: { setpoint: 1/min }` for a generator with a centre to move.
    /// None for a field that reports a setpoint, which takes what is written to it as that
    /// setpoint: `set` would make the reported target a value of its own.
    private func fieldCommand(_ node: Node, of field: String, recipe: (any GeneratorRecipe)?) -> FieldCommand? {
        if recipe is FormulaRecipe {
            report(
                node.mark,
                "field '\(field)' is a formula, whose value follows the fields it reads: no command sets it; "
                    + "give 'command' to a field it reads")
            return nil
        }
        if let setpoint = recipe as? SetpointRecipe {
            report(
                node.mark,
                "field '\(field)' reports the setpoint of '\(setpoint.source)' and takes a command as that setpoint already: "
                    + "remove its 'command'")
            return nil
        }
        if let text = node.scalarText {
            guard text == "set" else {
                report(node.mark, "expected set or { setpoint: RATE } for 'command' of field '\(field)', found \(node.summary)")
                return nil
            }
            if recipe?.valueKind == .timestamp {
                report(node.mark, "field '\(field)' is a timestamp: no command sets the time")
                return nil
            }
            return .set
        }
        guard let entries = entries(node, of: "'command' of field '\(field)'", known: ScenarioKeys.command.keys) else { return nil }
        guard let rateNode = entries["setpoint"] else {
            missing("setpoint", in: entries, of: "'command' of field '\(field)' (how fast it moves to a setpoint, such as 1/min)")
            return nil
        }
        guard let rate = rate(rateNode, "setpoint", allowMax: false) else { return nil }
        guard recipe == nil || recipe?.centre != nil else {
            report(
                rateNode.mark,
                "field '\(field)' has no centre for a setpoint to move (randomWalk and sine have); give it command: set")
            return nil
        }
        return .setpoint(perSecond: rate.perSecond)
    }

    /// `location: { fields: { lat: {...}, lon: {...} } }`: a nested object whose members are fields
    /// like any other, groups included. A group takes no generator and no modifiers.
    private func group(_ name: String, path: String, _ pairs: [Node.Pair]) -> FieldSpec? {
        let problemsBefore = diagnostics.count
        var membersNode: Node?
        for pair in pairs {
            guard let text = pair.key.scalarText else { continue }
            if text == Self.groupKey {
                membersNode = pair.value
            } else {
                report(
                    pair.key.mark,
                    "unexpected '\(text)' in group '\(path)': a field with 'fields' is a group of fields and takes nothing else; give generators and modifiers to its members"
                )
            }
        }
        guard let membersNode, let members = self.pairs(membersNode, of: "'fields' of group '\(path)'") else { return nil }
        if members.isEmpty {
            report(membersNode.mark, "expected at least one field in 'fields' of group '\(path)', found \(membersNode.summary)")
            return nil
        }
        let fields = members.compactMap { field($0.key, $0.value, in: path) }
        guard diagnostics.count == problemsBefore else { return nil }
        return FieldSpec(name: name, fields: fields)
    }

    // MARK: - Faults

    /// `faults: { spike: {...}, stuck: {...}, dropout: {...}, drift: {...} }`, each optional.
    /// Problems are reported; the caller sees them in the diagnostics count.
    private func faults(_ node: Node, of field: String) -> FieldFaults {
        var faults = FieldFaults()
        guard let pairs = pairs(node, of: "'faults' of field '\(field)'") else { return faults }
        for pair in pairs {
            guard let kind = pair.key.scalarText else { continue }
            let what = "fault '\(kind)' of field '\(field)'"
            switch kind {
            case "spike":
                guard let entries = entries(pair.value, of: what, known: ScenarioKeys.spike.keys) else { continue }
                let probability = probability(entries, of: what)
                let magnitude = required("magnitude", in: entries, of: what, "the size of the jump, added or subtracted") {
                    positive($0, "magnitude")
                }
                if let probability, let magnitude {
                    faults.spike = .init(probability: probability, magnitude: magnitude)
                }
            case "stuck":
                guard let entries = entries(pair.value, of: what, known: ScenarioKeys.stuck.keys) else { continue }
                let probability = probability(entries, of: what)
                let duration = required("duration", in: entries, of: what, "how long the value stays frozen, such as 30s") {
                    self.duration($0, "duration", positive: true)
                }
                if let probability, let duration {
                    faults.stuck = .init(probability: probability, duration: duration)
                }
            case "dropout":
                guard let entries = entries(pair.value, of: what, known: ScenarioKeys.dropout.keys) else { continue }
                let probability = probability(entries, of: what)
                let mode = dropoutMode(entries.values["mode"])
                if let probability, let mode {
                    faults.dropout = .init(probability: probability, mode: mode)
                }
            case "drift":
                guard let entries = entries(pair.value, of: what, known: ScenarioKeys.drift.keys) else { continue }
                let perHour = required("perHour", in: entries, of: what, "units added per hour") {
                    number($0, "perHour")
                }
                if let perHour { faults.drift = .init(perHour: perHour) }
            default:
                let hint =
                    Suggestion.closest(to: kind, among: FieldFaults.kinds).map { "; did you mean '\($0)'?" }
                    ?? "; expected one of: " + FieldFaults.kinds.joined(separator: ", ")
                report(pair.key.mark, "unknown fault '\(kind)' in field '\(field)'\(hint)")
            }
        }
        return faults
    }

    /// A required key of a fault, read by `read` when present.
    private func required<T>(
        _ key: String, in entries: Entries, of what: String, _ meaning: String,
        _ read: (Node) -> T?
    ) -> T? {
        guard let node = entries[key] else {
            missing(key, in: entries, of: "\(what) (\(meaning))")
            return nil
        }
        return read(node)
    }

    /// A fault's `probability`: required, from 0 to 1, per publish.
    private func probability(_ entries: Entries, of what: String) -> Double? {
        required("probability", in: entries, of: what, "the chance per publish, from 0 to 1") { node in
            guard let value = number(node, "probability") else { return nil }
            guard (0...1).contains(value) else {
                report(node.mark, "expected a probability from 0 to 1 for 'probability', found \(node.summary)")
                return nil
            }
            return value
        }
    }

    private func positive(_ node: Node, _ key: String) -> Double? {
        guard let value = number(node, key) else { return nil }
        guard value > 0 else {
            report(node.mark, "expected a number above 0 for '\(key)', found \(node.summary)")
            return nil
        }
        return value
    }

    /// `omit` (the default) or `null`. Read from the raw node: a plain `null` is YAML's null,
    /// which here means the mode, not its absence.
    private func dropoutMode(_ node: Node?) -> FieldFaults.Dropout.Mode? {
        guard let node else { return .omit }
        let modes = FieldFaults.Dropout.Mode.allCases.map(\.rawValue)
        if let text = node.scalarText, let mode = FieldFaults.Dropout.Mode(rawValue: text) {
            return mode
        }
        report(
            node.mark,
            "expected omit or null for 'mode', found \(node.scalarText.map { "'\($0)'" } ?? node.summary)"
                + Suggestion.hint(for: node.scalarText ?? "", among: modes))
        return nil
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
            if !isList(value, of: key) {
                report(error.offset.map { mark(of: $0, in: value) } ?? parameters.mark(for: error.key), error.message)
            }
            return .invalid
        }
        guard let recipe else { return .unknown }
        guard !isList(value, of: key) else { return .invalid }
        var valid = true
        for pair in parameters.pairs {
            guard let name = pair.key.scalarText, !parameters.asked.contains(name) else { continue }
            valid = false
            let takes =
                parameters.asked.isEmpty
                ? "; \(key) takes no parameters"
                : Suggestion.closest(to: name, among: parameters.asked).map { "; did you mean '\($0)'?" }
                    ?? "; \(key) takes: " + parameters.asked.joined(separator: ", ")
            report(pair.key.mark, "unknown parameter '\(name)' for \(key)\(takes)")
        }
        if case .scalar = value.kind, !value.isNull, !parameters.shorthandRead {
            valid = false
            let takes =
                parameters.asked.isEmpty
                ? "it takes no parameters"
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
        // Beside a generator only a modifier can stand: 'unit' is not a misspelt 'uuid'.
        let hint = Suggestion.closest(
            to: text, among: afterGenerator ? ScenarioKeys.modifiers.keys : generators.keys + ScenarioKeys.modifiers.keys)
        if let hint, ScenarioKeys.modifiers.keys.contains(hint) {
            report(key.mark, "unknown modifier '\(text)' in field '\(field)'; did you mean '\(hint)'?")
        } else if let hint {
            report(
                key.mark, "unknown generator '\(text)'; did you mean '\(hint)'? (generators: \(generators.keys.joined(separator: ", ")))")
        } else if afterGenerator {
            report(
                key.mark,
                "unknown key '\(text)' in field '\(field)'; besides its generator a field takes only the modifiers \(ScenarioKeys.modifiers.keys.joined(separator: ", "))"
            )
        } else {
            let known = generators.keys.isEmpty ? "" : "; expected one of: " + generators.keys.joined(separator: ", ")
            report(key.mark, "unknown generator '\(text)'\(known)")
        }
    }
}
