import CYAML

/// Turns YAML (and so JSON) text into a `Node` tree with positions, through libyaml's event API.
///
/// One document per file: a second document is an error rather than silently ignored. Anchors,
/// aliases and the `<<` merge key are supported; duplicate keys are errors.
struct YAMLParser {
    /// The tree, or `nil` when the text could not be parsed at all.
    var root: Node?
    /// Problems found, with their marks; a syntax error ends parsing, duplicate keys do not.
    var problems: [(mark: Mark, message: String)] = []

    /// Deeper nesting than this is refused, the trees that aliases copy in counted: every walk
    /// of the tree (filling in `${VAR}`, reading field groups, freeing it) is recursive.
    static let maximumDepth = 200
    /// Aliases can make a small file describe a huge tree ("billion laughs"); this bounds it.
    static let maximumNodes = 1_000_000

    init(bytes: [UInt8]) {
        guard bytes.contains(where: { !Self.isBlank($0) }) else {
            problems.append((Mark(line: 1, column: 1), "the file is empty; expected a scenario with 'devices'"))
            return
        }
        var builder = TreeBuilder()
        bytes.withUnsafeBufferPointer { buffer in
            builder.run(buffer)
        }
        root = builder.root
        problems = builder.problems
        if problems.isEmpty, root == nil || root?.isNull == true {
            root = nil
            problems.append((Mark(line: 1, column: 1), "the file is empty; expected a scenario with 'devices'"))
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

/// Assembles nodes from libyaml events with an explicit stack, so deep input cannot overflow ours.
private struct TreeBuilder {
    var root: Node?
    var problems: [(mark: Mark, message: String)] = []

    /// A node with what the limits count: the nodes in it (an alias counts its anchor's), and
    /// how many collections deep it goes (0 for a scalar).
    private struct Built {
        var node: Node
        var size: Int
        var height: Int
    }

    /// A sequence or mapping not yet closed.
    private struct Frame {
        var isMapping: Bool
        var mark: Mark
        var anchor: String?
        /// Items, or keys and values alternating.
        var children: [Node] = []
        var size = 1
        /// The greatest height among the children.
        var height = 0
    }

    private var stack: [Frame] = []
    private var anchors: [String: Built] = [:]
    private var documents = 0
    private var sawAlias = false

    mutating func run(_ buffer: UnsafeBufferPointer<UInt8>) {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            problems.append((Mark(line: 1, column: 1), "the YAML parser could not start (out of memory)"))
            return
        }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)

        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else {
                problems.append(
                    parser.error == YAML_READER_ERROR
                        ? Self.readerError(parser, buffer) : Self.syntaxError(parser))
                return
            }
            let keepGoing = handle(event)
            yaml_event_delete(&event)
            if !keepGoing { return }
        }
    }

    /// Returns false when parsing should stop.
    private mutating func handle(_ event: yaml_event_t) -> Bool {
        let mark = Mark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return false
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                problems.append((mark, "a scenario file holds one YAML document; remove this second one"))
                return false
            }
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = Self.string(scalar.value, Int(scalar.length))
            let tag = Self.optionalString(scalar.tag)
            // `!!str 5` is the string "5", as if it were quoted.
            let quoted = scalar.style != YAML_PLAIN_SCALAR_STYLE || tag == "tag:yaml.org,2002:str"
            let node = Node(kind: .scalar(text, quoted ? .quoted : .plain), mark: mark)
            return add(Built(node: node, size: 1, height: 0), anchor: Self.optionalString(scalar.anchor))
        case YAML_ALIAS_EVENT:
            sawAlias = true
            let name = Self.optionalString(event.data.alias.anchor) ?? ""
            guard let anchored = anchors[name] else {
                problems.append((mark, "unknown anchor '\(name)': an alias must follow its '&\(name)'"))
                return add(Built(node: Node(kind: .scalar("", .plain), mark: mark), size: 1, height: 0), anchor: nil)
            }
            // An alias copies its anchor's whole tree here, which may nest it past the limit
            // that each piece of the file keeps to on its own.
            guard stack.count + anchored.height <= YAMLParser.maximumDepth else {
                problems.append(
                    (
                        mark,
                        "nesting deeper than \(YAMLParser.maximumDepth) levels: the alias '*\(name)' "
                            + "adds the \(anchored.height) levels of its anchor to the \(stack.count) it stands in"
                    ))
                return false
            }
            // The alias stands where it is written, so errors inside point at the anchor's copy.
            return add(anchored, anchor: nil)
        case YAML_SEQUENCE_START_EVENT:
            guard enter(mark) else { return false }
            stack.append(Frame(isMapping: false, mark: mark, anchor: Self.optionalString(event.data.sequence_start.anchor)))
        case YAML_MAPPING_START_EVENT:
            guard enter(mark) else { return false }
            stack.append(Frame(isMapping: true, mark: mark, anchor: Self.optionalString(event.data.mapping_start.anchor)))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return false }
            let kind: Node.Kind = frame.isMapping ? .mapping(mapping(frame.children)) : .sequence(frame.children)
            return add(
                Built(node: Node(kind: kind, mark: frame.mark), size: frame.size, height: frame.height + 1),
                anchor: frame.anchor)
        default:
            break
        }
        return true
    }

    private mutating func enter(_ mark: Mark) -> Bool {
        guard stack.count < YAMLParser.maximumDepth else {
            problems.append((mark, "nesting deeper than \(YAMLParser.maximumDepth) levels"))
            return false
        }
        return true
    }

    /// Hands a finished node to its parent, or makes it the root.
    private mutating func add(_ built: Built, anchor: String?) -> Bool {
        if let anchor { anchors[anchor] = built }
        guard !stack.isEmpty else {
            root = built.node
            return true
        }
        stack[stack.count - 1].children.append(built.node)
        stack[stack.count - 1].size += built.size
        stack[stack.count - 1].height = max(stack[stack.count - 1].height, built.height)
        return withinBudget(stack[stack.count - 1].size, built.node.mark)
    }

    private mutating func withinBudget(_ size: Int, _ mark: Mark) -> Bool {
        guard size <= YAMLParser.maximumNodes else {
            problems.append(
                (
                    mark,
                    sawAlias
                        ? "the aliases here expand to more than \(YAMLParser.maximumNodes) nodes"
                        : "the file holds more than \(YAMLParser.maximumNodes) values, lists and mappings; a scenario needs far fewer"
                ))
            return false
        }
        return true
    }

    /// Pairs up a mapping's keys and values, applies `<<` merges and reports duplicate keys.
    private mutating func mapping(_ entries: [Node]) -> [Node.Pair] {
        var pairs: [Node.Pair] = []
        var seen: [String: Mark] = [:]
        var merged: [Node.Pair] = []
        var mergeIndex: Int?
        var index = 0
        while index + 1 < entries.count {
            let key = entries[index], value = entries[index + 1]
            index += 2
            if case .scalar("<<", .plain) = key.kind {
                mergeIndex = mergeIndex ?? pairs.count
                merged += mergeSources(value)
                continue
            }
            if let text = key.scalarText {
                if let first = seen[text] {
                    problems.append((key.mark, "duplicate key '\(text)' (first at line \(first.line), column \(first.column))"))
                    continue
                }
                seen[text] = key.mark
            }
            pairs.append(Node.Pair(key: key, value: value))
        }
        guard let mergeIndex else { return pairs }
        // Keys written in the mapping win over merged ones; among merged, the first source wins.
        var inserted: [Node.Pair] = []
        for pair in merged {
            guard let text = pair.key.scalarText, seen[text] == nil else { continue }
            seen[text] = pair.key.mark
            inserted.append(pair)
        }
        pairs.insert(contentsOf: inserted, at: mergeIndex)
        return pairs
    }

    private mutating func mergeSources(_ value: Node) -> [Node.Pair] {
        switch value.kind {
        case .mapping(let pairs):
            return pairs
        case .sequence(let items):
            var all: [Node.Pair] = []
            for item in items {
                guard case .mapping(let pairs) = item.kind else {
                    problems.append((item.mark, "'<<' merges mappings; expected a mapping here"))
                    continue
                }
                all += pairs
            }
            return all
        case .scalar:
            problems.append((value.mark, "'<<' merges mappings; expected a mapping or a list of mappings"))
            return []
        }
    }

    private static func syntaxError(_ parser: yaml_parser_t) -> (Mark, String) {
        let mark = Mark(line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1)
        var message = "YAML syntax error: " + (optionalCString(parser.problem) ?? "unknown problem")
        if let context = optionalCString(parser.context) {
            let at = parser.context_mark
            message += " (\(context) at line \(at.line + 1), column \(at.column + 1))"
        }
        // libyaml's words for a line indented more or less than its neighbours.
        let indentation = [
            "did not find expected key", "mapping values are not allowed in this context", "did not find expected '-' indicator",
        ]
        if let problem = optionalCString(parser.problem), indentation.contains(problem) {
            message += "; check the indentation: the keys of one mapping start in one column, with spaces, not tabs"
        }
        return (mark, message)
    }

    /// Bad encoding or a control character: libyaml gives a byte offset rather than a mark.
    private static func readerError(_ parser: yaml_parser_t, _ buffer: UnsafeBufferPointer<UInt8>) -> (Mark, String) {
        let mark = mark(at: Int(parser.problem_offset), in: buffer, encoding: parser.encoding)
        let problem = optionalCString(parser.problem) ?? "unreadable text"
        let value = Int(parser.problem_value)
        if problem == "control characters are not allowed" {
            // Valid UTF-8, but no text file holds it: most likely a binary file.
            return (
                mark,
                "the file is not text: it holds the control character \(codePoint(value)), "
                    + "which YAML does not allow; is it a binary file?"
            )
        }
        let detail =
            problem.hasSuffix("octet") && value >= 0
            ? " (byte 0x\(hex(value, digits: 2)))"
            : problem == "invalid Unicode character" ? " (\(codePoint(value)))" : ""
        let encoding = problem.contains("UTF-16") || problem.contains("surrogate") ? "UTF-16" : "UTF-8"
        return (mark, "the file is not valid \(encoding) text: \(problem)\(detail)")
    }

    /// Where the byte at `offset` stands, counting lines and characters up to it in the file's
    /// encoding, after its byte order mark.
    private static func mark(at offset: Int, in buffer: UnsafeBufferPointer<UInt8>, encoding: yaml_encoding_t) -> Mark {
        var mark = Mark(line: 1, column: 1)
        func count(_ unit: UInt16, startsCharacter: Bool) {
            if unit == 0x0A {
                mark = Mark(line: mark.line + 1, column: 1)
            } else if startsCharacter {
                mark.column += 1
            }
        }
        let end = min(offset, buffer.count)
        if encoding == YAML_UTF16LE_ENCODING || encoding == YAML_UTF16BE_ENCODING {
            let (high, low) = encoding == YAML_UTF16LE_ENCODING ? (1, 0) : (0, 1)
            var index = 2
            while index + 2 <= end {
                let unit = UInt16(buffer[index + high]) << 8 | UInt16(buffer[index + low])
                // A low surrogate belongs to the high one before it.
                count(unit, startsCharacter: !(0xDC00...0xDFFF).contains(unit))
                index += 2
            }
        } else {
            let start = buffer.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            for byte in buffer[min(start, end)..<end] {
                // Continuation bytes belong to the character before them.
                count(UInt16(byte), startsCharacter: byte & 0xC0 != 0x80)
            }
        }
        return mark
    }

    private static func codePoint(_ value: Int) -> String {
        "U+" + hex(value, digits: 4)
    }

    private static func hex(_ value: Int, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, _ length: Int) -> String {
        guard let pointer, length > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private static func optionalString(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    private static func optionalCString(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}
