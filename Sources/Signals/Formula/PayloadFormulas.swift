/// The formulas of one payload, checked together, since each reads the others' fields: what
/// every name stands for, formulas that read each other in a circle, the kind of every value,
/// and the modifiers of a formula that gives no number. Each formula is compiled after those it
/// reads, whose kind it needs.
package enum PayloadFormulas {
    /// A problem of one formula field.
    package struct Problem: Sendable, Equatable {
        /// The field's path through the payload's groups (`location.lat`).
        package var field: String
        /// Where in its formula (Unicode scalars from 0); `nil` when it is about `key`.
        package var offset: Int?
        /// The modifier of the field it is about, when it is about one.
        package var key: String?
        package var message: String
    }

    /// `fields` with every formula compiled, or the problems that stop one.
    /// - Parameter closest: the candidate a misspelt word is closest to, if any is near.
    package static func check(
        _ fields: [FieldSpec], closest: @escaping (String, [String]) -> String?
    ) -> (fields: [FieldSpec], problems: [Problem]) {
        var leaves: [(path: String, spec: FieldSpec)] = []
        var groups: [String: [String]] = [:]
        func walk(_ fields: [FieldSpec], _ prefix: String) {
            for field in fields {
                let path = prefix + field.name
                if let members = field.fields {
                    groups[path] = members.map { path + "." + $0.name }
                    walk(members, path + ".")
                } else {
                    leaves.append((path, field))
                }
            }
        }
        walk(fields, "")
        let formulas = leaves.compactMap { leaf in (leaf.spec.generator as? FormulaRecipe).map { (path: leaf.path, recipe: $0) } }
        guard !formulas.isEmpty else { return (fields, []) }
        let byPath = Dictionary(leaves.map { ($0.path, $0.spec) }, uniquingKeysWith: { first, _ in first })
        let paths = leaves.map(\.path)

        let (order, left) = ordered(formulas)
        var problems = circles(formulas, left: left)
        var programs: [String: FormulaProgram] = [:]
        for (path, recipe) in order {
            var compiler = FormulaCompiler(
                lookup: { name in
                    if let members = groups[name] { return .group(members) }
                    guard let spec = byPath[name] else { return nil }
                    if spec.generator is FormulaRecipe { return programs[name].map { .field($0.kind) } ?? .unchecked }
                    return readable(name, spec)
                },
                unknown: { word, function in
                    function ? functionHint(word, closest) : nameHint(word, among: paths, closest)
                })
            do {
                let program = try compiler.compile(recipe.syntax)
                programs[path] = program
                if let spec = byPath[path], let problem = numbersOnly(spec, path, program.kind) { problems.append(problem) }
            } catch {
                if !error.isConsequence { problems.append(Problem(field: path, offset: error.offset, message: error.message)) }
            }
        }
        return (compiled(fields, "", programs), problems)
    }

    /// What a formula reads of a field that is no formula.
    private static func readable(_ path: String, _ spec: FieldSpec) -> FormulaCompiler.Name {
        switch spec.generator {
        case let timestamp as TimestampRecipe where timestamp.unit == .iso8601:
            .unreadable(
                "'\(path)' is an ISO 8601 timestamp, which a formula does not read: t is the seconds since the device started")
        case is TimestampRecipe: .field(.number)
        case is BytesRecipe: .unreadable("'\(path)' is binary bytes, which a formula does not read")
        case let generator?: .field(generator.valueKind)
        case nil: .unreadable("'\(path)' is no value")
        }
    }

    /// The formulas in an order where each comes after the formulas it reads (Kahn's), then
    /// those in a circle or reading one (`left`), in field order.
    private static func ordered(
        _ formulas: [(path: String, recipe: FormulaRecipe)]
    ) -> (order: [(path: String, recipe: FormulaRecipe)], left: Set<String>) {
        let index = Dictionary(formulas.enumerated().map { ($0.element.path, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var waiting = formulas.map { formula in Set(formula.recipe.syntax.names.compactMap { index[$0.name] }).count }
        var readers = Array(repeating: [Int](), count: formulas.count)
        for (number, formula) in formulas.enumerated() {
            for read in Set(formula.recipe.syntax.names.compactMap({ index[$0.name] })) { readers[read].append(number) }
        }
        var order = waiting.indices.filter { waiting[$0] == 0 }
        var next = 0
        while next < order.count {
            for reader in readers[order[next]] {
                waiting[reader] -= 1
                if waiting[reader] == 0 { order.append(reader) }
            }
            next += 1
        }
        let placed = Set(order)
        let left = formulas.indices.filter { !placed.contains($0) }
        return ((order + left).map { formulas[$0] }, Set(left.map { formulas[$0].path }))
    }

    /// One problem for each circle of formulas that read each other, at the name that closes it:
    /// for each formula left out of `ordered`'s order, in field order, the shortest way from it
    /// back to itself, unless a circle said before passes through it.
    private static func circles(_ formulas: [(path: String, recipe: FormulaRecipe)], left: Set<String>) -> [Problem] {
        let reads = Dictionary(
            formulas.map { formula in (formula.path, formula.recipe.syntax.names.filter { left.contains($0.name) }) },
            uniquingKeysWith: { first, _ in first })
        var problems: [Problem] = []
        var said: Set<String> = []
        for formula in formulas where left.contains(formula.path) && !said.contains(formula.path) {
            // Breadth first, so that the circle named is the shortest.
            var cameFrom: [String: String] = [:]
            var queue = [formula.path]
            var next = 0
            search: while next < queue.count {
                let current = queue[next]
                next += 1
                for read in reads[current] ?? [] {
                    if read.name == formula.path {
                        var circle = [current]
                        while let previous = cameFrom[circle[0]] { circle.insert(previous, at: 0) }
                        said.formUnion(circle)
                        let message =
                            circle.count == 1
                            ? "field '\(current)' reads itself: a formula does not take its own value (integral adds a field up over time)"
                            : "formulas read each other in a circle: \((circle + [formula.path]).joined(separator: " → ")); "
                                + "one of them must be made otherwise"
                        problems.append(Problem(field: current, offset: read.offset, message: message))
                        break search
                    }
                    if cameFrom[read.name] == nil, read.name != formula.path {
                        cameFrom[read.name] = current
                        queue.append(read.name)
                    }
                }
            }
        }
        return problems
    }

    /// A problem when a formula that gives no number has a modifier for numbers.
    private static func numbersOnly(_ spec: FieldSpec, _ path: String, _ kind: ValueKind) -> Problem? {
        guard kind != .number else { return nil }
        let faults = spec.faults.spike != nil || spec.faults.stuck != nil || spec.faults.drift != nil
        let modifiers: [(String, Bool)] = [
            ("decimals", spec.decimals != nil), ("noise", spec.noise != nil), ("min", spec.min != nil), ("max", spec.max != nil),
            ("faults", faults),
        ]
        guard let key = modifiers.first(where: \.1)?.0 else { return nil }
        let what = kind == .bool ? "true or false" : "text"
        let forNumbers = key == "faults" ? "its spike, stuck and drift are for numbers" : "'\(key)' is for numbers"
        return Problem(
            field: path, offset: nil, key: key, message: "field '\(path)' gives \(what) (its formula's value), and \(forNumbers)")
    }

    private static func functionHint(_ word: String, _ closest: (String, [String]) -> String?) -> String {
        let functions = FormulaFunction.allCases.map(\.rawValue)
        return closest(word, functions).map { "; did you mean '\($0)'?" } ?? "; the functions are " + functions.joined(separator: ", ")
    }

    private static func nameHint(_ word: String, among paths: [String], _ closest: (String, [String]) -> String?) -> String {
        // A member named without its group: `lat` for `location.lat`.
        let members = paths.filter { $0.hasSuffix("." + word) }
        if members.count == 1 { return "; did you mean '\(members[0])'? (a member of a group is named by its path)" }
        if let hint = closest(word, paths + FormulaCompiler.deviceNames) { return "; did you mean '\(hint)'?" }
        let listed =
            paths.count <= 12 ? paths.joined(separator: ", ") : paths.prefix(12).joined(separator: ", ") + " and \(paths.count - 12) more"
        return "; expected a field of the payload (\(listed)) or " + FormulaCompiler.deviceNames.joined(separator: ", ")
    }

    /// `fields` with each formula's program set.
    private static func compiled(_ fields: [FieldSpec], _ prefix: String, _ programs: [String: FormulaProgram]) -> [FieldSpec] {
        fields.map { field in
            var field = field
            let path = prefix + field.name
            if let members = field.fields {
                field.content = .group(compiled(members, path + ".", programs))
            } else if var recipe = field.generator as? FormulaRecipe, let program = programs[path] {
                recipe.program = program
                field.content = .generator(recipe)
            }
            return field
        }
    }
}
