/// Where a character of a scalar's text stands in the file, so that an error inside a value
/// written in a language of its own (a formula) can name the column of the token it is about.
enum ScalarPosition {
    /// The place of the `offset`-th Unicode scalar of `node`'s text (or just after the last), as
    /// the file shows it: exact for a plain, single- or double-quoted scalar on one line, escapes
    /// counted as written; `nil` where the text is not the file's characters one for one (a
    /// block scalar, one folded over lines, one `${VAR}` changed, a file in UTF-16), and the
    /// node's own place must do.
    static func mark(of offset: Int, in node: Node, source: [UInt8]) -> Mark? {
        guard let text = node.scalarText.map({ Array($0.unicodeScalars) }), offset >= 0, offset <= text.count,
            var line = line(node.mark.line, of: source)
        else { return nil }
        // libyaml counts the columns of the first line after a byte order mark.
        if node.mark.line == 1, line.first == "\u{FEFF}" { line.removeFirst() }
        let start = node.mark.column - 1
        guard start >= 0, start < line.count else { return nil }
        let quote = line[start]
        var index = quote == "\"" || quote == "'" ? start + 1 : start
        for character in text.prefix(offset) {
            guard index < line.count else { return nil }
            if quote == "\"", line[index] == "\\" {
                index += escapeLength(line, at: index)
            } else if quote == "'", line[index] == "'" {
                // `''` is one quote inside a single-quoted scalar.
                guard character == "'", index + 1 < line.count, line[index + 1] == "'" else { return nil }
                index += 2
            } else {
                guard line[index] == character else { return nil }
                index += 1
            }
        }
        guard index <= line.count else { return nil }
        return Mark(line: node.mark.line, column: index + 1)
    }

    /// The characters an escape takes in a double-quoted scalar: `\x41` four, `\u0041` six,
    /// `\U00000041` ten, others two.
    private static func escapeLength(_ line: [Unicode.Scalar], at index: Int) -> Int {
        guard index + 1 < line.count else { return 1 }
        switch line[index + 1] {
        case "x": return 4
        case "u": return 6
        case "U": return 10
        default: return 2
        }
    }

    /// The Unicode scalars of the 1-based line `number` of a UTF-8 file, without its line break.
    private static func line(_ number: Int, of source: [UInt8]) -> [Unicode.Scalar]? {
        var start = 0
        var line = 1
        while line < number {
            guard let newline = source[start...].firstIndex(of: 0x0A) else { return nil }
            start = newline + 1
            line += 1
        }
        let end = source[start...].firstIndex(of: 0x0A) ?? source.count
        var bytes = source[start..<end]
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return Array(text.unicodeScalars)
    }
}
