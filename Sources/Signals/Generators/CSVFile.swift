#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A CSV file read whole, for `replay` (`CSVColumnRecipe`): RFC 4180 rows (fields separated by commas, double quotes
/// around fields holding commas, quotes or line breaks, `""` for a quote inside them), LF or CRLF
/// line ends. Blank lines are skipped. Also a scenario's `broker.credentials`.
package enum CSVFile {
    /// The rows of `bytes`, each a list of its fields.
    static func rows(_ bytes: [UInt8]) -> [[String]] {
        parse(bytes).rows.map(\.fields)
    }

    /// A quote where RFC 4180 has none, at its line and column (from 1): one inside a field
    /// that does not start with one, or one never closed, which takes in the rest of the file.
    package struct QuoteProblem: Equatable, Sendable {
        package var line: Int
        package var column: Int
        package var message: String
    }

    /// The rows of `bytes` with the line each starts on (from 1): a quoted field may hold line
    /// breaks, so a row may span lines. And the quotes out of place, which the rows read as
    /// best they can.
    package static func parse(_ bytes: [UInt8]) -> (rows: [(line: Int, fields: [String])], quoteProblems: [QuoteProblem]) {
        var rows: [(line: Int, fields: [String])] = []
        var problems: [QuoteProblem] = []
        var lineStart = bytes.startIndex
        var quoteOpened = (line: 1, column: 1)
        var row: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var line = 1
        var rowLine = 1
        var index = bytes.startIndex
        // UTF-8 byte order mark, as spreadsheets write it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }

        func endRow() {
            row.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            if !(row.count == 1 && row[0].isEmpty) { rows.append((rowLine, row)) }
            row = []
        }

        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && (index == bytes.endIndex || bytes[index] != UInt8(ascii: "\n")))
            {
                line += 1
                lineStart = index
            }
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index < bytes.endIndex && bytes[index] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                let column = index - lineStart
                if !field.isEmpty {
                    problems.append(
                        QuoteProblem(line: line, column: column, message: "a quote inside a field that does not start with one"))
                }
                quoteOpened = (line, column)
                quoted = true
            case UInt8(ascii: ","):
                row.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            case UInt8(ascii: "\n"):
                endRow()
                rowLine = line
            case UInt8(ascii: "\r"):
                if index < bytes.endIndex && bytes[index] == UInt8(ascii: "\n") {
                    index += 1
                    line += 1
                    lineStart = index
                }
                endRow()
                rowLine = line
            default:
                field.append(byte)
            }
        }
        if quoted {
            problems.append(
                QuoteProblem(
                    line: quoteOpened.line, column: quoteOpened.column,
                    message: "a quote opened here is never closed, and takes in the rest of the file"))
        }
        if !field.isEmpty || !row.isEmpty { endRow() }
        return (rows, problems)
    }

    /// A cell as a value: a number when it reads as one (`12`, `-0.5`, `1e3`), `null` when empty,
    /// else the text.
    static func value(_ cell: String) -> SignalValue {
        let trimmed = cell.trimmingSpaces
        if trimmed.isEmpty { return .null }
        if let first = trimmed.utf8.first,
            first == UInt8(ascii: "-") || first == UInt8(ascii: ".")
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
            !trimmed.contains(where: { $0 == "x" || $0 == "X" }),
            let number = Double(trimmed), number.isFinite
        {
            return .number(number)
        }
        return .string(cell)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
