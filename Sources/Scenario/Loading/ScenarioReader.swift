import MQTT
/// Reads the node tree into the model, collecting every problem instead of stopping at the first.
///
/// Each reading function reports what is wrong at the node's mark and returns `nil`; the caller
/// carries on with the next key, so one run over a file lists all its errors.
final class ScenarioReader {
    let file: String
    /// The scenario file's directory with its trailing `/`, or empty for the current directory.
    let directory: String
    let generators: GeneratorRegistry
    /// The load this file is part of, which reads the files it includes.
    unowned let session: LoadSession
    /// The file's bytes, for a place inside a value (`ScalarPosition`).
    let source: [UInt8]
    private(set) var diagnostics: [Diagnostic] = []
    /// See `Scenario.fileLocations`.
    private(set) var fileLocations: [String: SourceLocation] = [:]

    init(file: String, source: [UInt8] = [], generators: GeneratorRegistry, session: LoadSession) {
        self.file = file
        self.source = source
        self.generators = generators
        self.session = session
        if let slash = file.lastIndex(of: "/") {
            directory = String(file[...slash])
        } else {
            directory = ""
        }
    }

    /// Takes back what was reported at `marks`: what the reader said of values it could not have
    /// read, since interpolating them failed (one cause, one error).
    func withdrawReports(at marks: Set<Mark>) {
        diagnostics.removeAll { marks.contains(Mark(line: $0.line, column: $0.column)) }
    }

    /// Keeps where the setting at `path` (`broker.tls.ca`) names a file, for `Scenario.fileLocations`.
    func locateFile(_ path: String, at node: Node) {
        fileLocations[path] = SourceLocation(file: file, line: node.mark.line, column: node.mark.column)
    }

    func report(_ mark: Mark, _ message: String) {
        diagnostics.append(Diagnostic(file: file, line: mark.line, column: mark.column, message: message))
    }

    /// Where the `offset`-th character of `node`'s text stands, when the file shows it one for
    /// one; else, and for no offset, where the node starts.
    func mark(of offset: Int?, in node: Node) -> Mark {
        offset.flatMap { ScalarPosition.mark(of: $0, in: node, source: source) } ?? node.mark
    }

    /// Problems found in a file the scenario names (a credentials file), at their own places.
    func report(_ problems: [Diagnostic]) {
        diagnostics += problems
    }

    /// A path from the scenario, made relative to the scenario's directory rather than the
    /// directory devsim happens to run in.
    func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : directory + path
    }

    // MARK: - Mappings

    /// A mapping's values by key, with the mapping's mark for "missing" messages.
    struct Entries {
        var mark: Mark
        var values: [String: Node] = [:]

        /// The value for `key`; an explicit null counts as absent.
        subscript(key: String) -> Node? {
            guard let node = values[key], !node.isNull else { return nil }
            return node
        }
    }

    /// The entries of `node`, which must be a mapping; unknown keys are reported with a hint.
    /// A null node (`broker:` with nothing under it) reads as an empty mapping.
    func entries(_ node: Node, of what: String, known: [String]) -> Entries? {
        guard let pairs = pairs(node, of: what) else { return nil }
        var entries = Entries(mark: node.mark)
        for pair in pairs {
            guard let key = pair.key.scalarText else { continue }
            if known.contains(key) {
                entries.values[key] = pair.value
            } else if let hint = Suggestion.closest(to: key, among: known) {
                report(pair.key.mark, "unknown key '\(key)' in \(what); did you mean '\(hint)'?")
            } else {
                report(pair.key.mark, "unknown key '\(key)' in \(what); expected one of: \(known.joined(separator: ", "))")
            }
        }
        return entries
    }

    /// The pairs of a mapping in file order, keeping only those with scalar keys.
    func pairs(_ node: Node, of what: String) -> [Node.Pair]? {
        if node.isNull { return [] }
        guard case .mapping(let pairs) = node.kind else {
            report(node.mark, "expected a mapping for \(what), found \(node.summary)")
            return nil
        }
        return pairs.filter { pair in
            if pair.key.scalarText != nil { return true }
            report(pair.key.mark, "expected a key name in \(what), found \(pair.key.summary)")
            return false
        }
    }

    /// Reports a missing required key at the mapping that lacks it.
    func missing(_ key: String, in entries: Entries, of what: String) {
        report(entries.mark, "missing '\(key)' in \(what)")
    }

    // MARK: - Scalars

    func string(_ node: Node?, _ key: String) -> String? {
        guard let node else { return nil }
        guard let text = node.scalarText else {
            report(node.mark, "expected text for '\(key)', found \(node.summary)")
            return nil
        }
        return text
    }

    func integer(_ node: Node?, _ key: String, in range: ClosedRange<Int>? = nil) -> Int? {
        guard let node else { return nil }
        guard let value = node.integer else {
            report(node.mark, "expected \(Self.integerText(range)) for '\(key)', found \(node.summary)")
            return nil
        }
        if let range, !range.contains(value) {
            report(node.mark, "expected \(Self.integerText(range)) for '\(key)', found \(value)")
            return nil
        }
        return value
    }

    /// A `qos` key: 0, 1 or 2.
    func qos(_ node: Node?) -> QoS? {
        integer(node, "qos", in: 0...2).flatMap { QoS(rawValue: Int32($0)) }
    }

    private static func integerText(_ range: ClosedRange<Int>?) -> String {
        guard let range else { return "an integer" }
        if range.count <= 3 {
            let values = range.map(String.init)
            return values.dropLast().joined(separator: ", ") + " or " + values[values.count - 1]
        }
        if range.upperBound == .max { return "an integer of at least \(range.lowerBound)" }
        return "an integer from \(range.lowerBound) to \(range.upperBound)"
    }

    func number(_ node: Node?, _ key: String, atLeast minimum: Double? = nil) -> Double? {
        guard let node else { return nil }
        guard let value = node.number else {
            report(node.mark, "expected a number for '\(key)', found \(node.summary)")
            return nil
        }
        if let minimum, value < minimum {
            report(node.mark, "expected a number of at least \(Self.trimmed(minimum)) for '\(key)', found \(node.summary)")
            return nil
        }
        return value
    }

    func bool(_ node: Node?, _ key: String) -> Bool? {
        guard let node else { return nil }
        guard let value = node.bool else {
            report(node.mark, "expected true or false for '\(key)', found \(node.summary)")
            return nil
        }
        return value
    }

    /// One of a fixed set of words, with a hint for a near miss.
    func choice(_ node: Node?, _ key: String, _ options: [String]) -> String? {
        guard let node, let text = string(node, key) else { return nil }
        guard options.contains(text) else {
            let listed = options.count == 1 ? options[0] : options.dropLast().joined(separator: ", ") + " or " + (options.last ?? "")
            report(
                node.mark,
                "expected \(listed) for '\(key)', found \(node.summary)"
                    + Suggestion.hint(for: text, among: options))
            return nil
        }
        return text
    }

    // MARK: - Quantities

    /// Seconds; quoted or not, since `"30s"` and `30s` mean the same.
    func duration(_ node: Node?, _ key: String, positive: Bool = false) -> Double? {
        quantity(node, key) { text throws(QuantityError) in
            positive ? try Durations.parsePositive(text) : try Durations.parse(text)
        }
    }

    func rate(_ node: Node?, _ key: String, allowMax: Bool = true) -> Rate? {
        if let node, let text = node.scalarText, Self.isZeroRate(text) {
            report(
                node.mark,
                "expected a rate above zero such as 10/s, 600/min, 10Hz or 1/60s for '\(key)', found \(node.summary): "
                    + "a rate of zero never ticks")
            return nil
        }
        guard let node, let rate = quantity(node, key, Rate.parse) else { return nil }
        if rate == .max && !allowMax {
            report(node.mark, "expected a rate such as 10/s, 600/min, 10Hz or 1/60s for '\(key)', found 'max'; 'max' only suits 'publish'")
            return nil
        }
        return rate
    }

    /// `0/s`, `0/min`, `0Hz`, `0`: a count of zero, which the general message would not explain.
    static func isZeroRate(_ text: String) -> Bool {
        guard var count = Substring(text).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first else {
            return false
        }
        count = count.trimmingSpaces
        if count.hasSuffix("Hz") || count.hasSuffix("hz") { count = count.dropLast(2) }
        return DecimalText.number(count.trimmingSpaces) == 0
    }

    func size(_ node: Node?, _ key: String) -> Int? {
        quantity(node, key, Sizes.parse)
    }

    private func quantity<T>(
        _ node: Node?, _ key: String,
        _ parse: (String) throws(QuantityError) -> T
    ) -> T? {
        guard let node, let text = string(node, key) else { return nil }
        do {
            return try parse(text)
        } catch {
            // A group's publish may also be onChange (`ScenarioReader+Devices`), read before it.
            let (also, hint) =
                key == "publish" ? (", or onChange to send on a change,", Suggestion.hint(for: text, among: ["onChange"])) : ("", "")
            report(node.mark, "expected \(error.expected)\(also) for '\(key)', found \(node.summary)\(hint)")
            return nil
        }
    }

    // MARK: - Templates

    /// A template whose placeholders are all known; `{id}` is refused where the id is being made.
    func template(_ node: Node?, _ key: String, allowID: Bool = true, also: [String] = []) -> Template? {
        guard let node, let text = string(node, key) else { return nil }
        let template = Template(node.templateText ?? text)
        var valid = true
        let known = (allowID ? Template.knownPlaceholders : Template.knownPlaceholders.filter { $0 != "id" }) + also
        for name in template.placeholders where !known.contains(name) {
            valid = false
            if name == "id" {
                report(node.mark, "'{id}' cannot be used in '\(key)', which makes the id; use {name} and {index}")
            } else {
                let hint = Suggestion.closest(to: name, among: known).map { "; did you mean '{\($0)}'?" }
                report(
                    node.mark,
                    "unknown placeholder '{\(name)}' in '\(key)'"
                        + (hint ?? "; expected " + known.map { "{\($0)}" }.joined(separator: ", ")))
            }
        }
        return valid ? template : nil
    }

    /// A topic to publish to: a template, non-empty, without the subscription wildcards.
    func topic(_ node: Node?, _ key: String) -> Template? {
        guard let node, let template = template(node, key) else { return nil }
        if template.source.isEmpty || template.source.contains("+") || template.source.contains("#") {
            report(
                node.mark,
                "expected a topic to publish to, not empty and without the wildcards '+' and '#', for '\(key)', found \(node.summary)")
            return nil
        }
        return template
    }

    static func trimmed(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
