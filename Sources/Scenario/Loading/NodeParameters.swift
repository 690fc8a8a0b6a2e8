#if canImport(Glibc)
    import Glibc
#endif
import Signals

/// A generator's parameters read from its YAML value: a mapping of parameters, or a scalar
/// shorthand. Remembers which keys the generator asked for, so the loader can report the rest as
/// unknown, and where each key's value stands, so a `ParameterError` can point at it.
final class NodeParameters: ParameterSource {
    /// The generator's value node (`{ min: 18, max: 26 }` or `x`).
    let node: Node
    /// Keys and values in file order; empty for a shorthand.
    let pairs: [Node.Pair]
    private(set) var asked: [String] = []
    private(set) var shorthandRead = false
    /// Makes a path from the scenario relative to the scenario file (`ScenarioReader.resolve`).
    let resolve: (String) -> String

    /// - Parameter resolve: how relative paths are anchored; the reader passes its own `resolve`,
    ///   so a generator's file is found where a TLS certificate would be.
    init(_ node: Node, resolve: @escaping (String) -> String = { $0 }) {
        self.node = node
        self.resolve = resolve
        if case .mapping(let pairs) = node.kind {
            self.pairs = pairs.filter { $0.key.scalarText != nil }
        } else {
            self.pairs = []
        }
    }

    /// Where a parameter's error belongs: at its value, or at the whole when the key is absent.
    func mark(for key: String?) -> Mark {
        key.flatMap { value($0)?.mark } ?? node.mark
    }

    var shorthand: String? {
        shorthandRead = true
        guard case .scalar(let text, _) = node.kind, !node.isNull else { return nil }
        return text
    }

    func number(_ key: String) throws(ParameterError) -> Double? {
        try read(key, "a number") { $0.number }
    }

    func integer(_ key: String) throws(ParameterError) -> Int? {
        try read(key, "an integer") { $0.integer }
    }

    func string(_ key: String) throws(ParameterError) -> String? {
        try read(key, "text") { $0.scalarText }
    }

    func environmentValues(_ key: String?) -> [Range<Int>] {
        (key.map(value) ?? node)?.verbatim ?? []
    }

    func bool(_ key: String) throws(ParameterError) -> Bool? {
        try read(key, "true or false") { $0.bool }
    }

    func duration(_ key: String) throws(ParameterError) -> Double? {
        // A negative duration reads as a duration, so say what is wrong with it.
        let negative = value(key)?.scalarText.flatMap { Durations.seconds(Substring($0)) }.map { $0 < 0 } ?? false
        return try read(key, Durations.expected + (negative ? " of zero or more" : "")) { node in
            node.scalarText.flatMap { try? Durations.parse($0) }
        }
    }

    func size(_ key: String) throws(ParameterError) -> Int? {
        try read(key, Sizes.expected) { node in node.scalarText.flatMap(size(of:)) }
    }

    func size(of text: String) -> Int? {
        try? Sizes.parse(text)
    }

    func strings(_ key: String) throws(ParameterError) -> [String]? {
        try read(key, "a list of values") { node in
            guard case .sequence(let items) = node.kind else { return nil }
            let texts = items.compactMap(\.scalarText)
            return texts.count == items.count ? texts : nil
        }
    }

    func durations(_ key: String) throws(ParameterError) -> [Double]? {
        try read(key, "a list of durations such as [2m, 5s]") { node in
            guard case .sequence(let items) = node.kind else { return nil }
            let seconds = items.compactMap { $0.scalarText.flatMap { try? Durations.parse($0) } }
            return seconds.count == items.count ? seconds : nil
        }
    }

    func scalars(_ key: String) throws(ParameterError) -> [SignalValue]? {
        try read(key, "a list of values") { node in
            guard case .sequence(let items) = node.kind else { return nil }
            let values = items.compactMap(Self.scalar)
            return values.count == items.count ? values : nil
        }
    }

    func path(_ key: String) throws(ParameterError) -> String? {
        let path: String? = try read(key, "a file path") { node in
            guard let text = node.scalarText, !text.isEmpty else { return nil }
            return resolve(text)
        }
        // The file is read whole as the scenario loads: `/dev/zero` would never end, and a FIFO
        // would block until something writes to it.
        var status = stat()
        if let path, stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG, status.st_mode & S_IFMT != S_IFDIR {
            throw ParameterError(key: key, "cannot read '\(path)': it is a device or a pipe, not a file")
        }
        return path
    }

    /// A scalar item with its type: plain numbers and booleans as such, quoted text always text.
    private static func scalar(_ node: Node) -> SignalValue? {
        guard let text = node.scalarText else { return nil }
        if node.isNull { return .null }
        if let number = node.number, number.isFinite { return .number(number) }
        if let bool = node.bool { return .bool(bool) }
        return .string(text)
    }

    private func value(_ key: String) -> Node? {
        pairs.first { $0.key.scalarText == key }?.value
    }

    private func read<T>(_ key: String, _ expected: String, _ convert: (Node) -> T?) throws(ParameterError) -> T? {
        if !asked.contains(key) { asked.append(key) }
        guard let node = value(key), !node.isNull else { return nil }
        guard let result = convert(node) else {
            throw ParameterError(key: key, "expected \(expected) for '\(key)', found \(node.summary)")
        }
        return result
    }
}
