/// `replay: { file: readings.csv, column: temperature }`: one column of a CSV file, a row per
/// publish, starting over after the last row. The file is found relative to the scenario file
/// and read once, when the scenario loads.
///
/// `column` is the header's name for it or its 0-based index; `header: false` says the first row
/// is data, and then `column` must be an index. A cell that reads as a number is a number, an
/// empty cell (or a row too short to reach the column) is `null`, and anything else is text.
///
/// Its key, `replay`, is the scenario language's and older than recordings; in the code, a replay
/// is a device replaying a recording (`ReplayPlan`), and this a CSV file's column.
package struct CSVColumnRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "replay"
    /// The column's values, in file order; never empty.
    package var values: [SignalValue]

    package init(values: [SignalValue]) {
        self.values = values
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "file and column")
        guard let path = try parameters.path("file") else {
            throw ParameterError(key: "file", "file is required: the CSV file to replay")
        }
        let header = try parameters.bool("header") ?? true
        // An integer is an index; anything else a header name.
        let index = try? parameters.integer("column")
        var name: String?
        if index == nil { name = try parameters.string("column") }
        guard index != nil || name != nil else {
            throw ParameterError(key: "column", "column is required: a header name or a 0-based index")
        }

        let bytes: [UInt8]
        do {
            bytes = try WholeFile.bytes(at: path)
        } catch {
            throw ParameterError(key: "file", "cannot read '\(path)': \(error.reason)")
        }
        var rows = CSVFile.rows(bytes)
        var column: Int
        if let index {
            guard index >= 0 else { throw ParameterError(key: "column", "column must be a name or an index from 0") }
            column = index
        } else if let name {
            guard header else {
                throw ParameterError(key: "column", "column must be an index when the file has no header")
            }
            guard
                let found = rows.first?.firstIndex(where: { $0 == name })
                    ?? rows.first?.firstIndex(where: { $0.trimmed == name })
            else {
                let names = rows.first?.map { "'\($0)'" }.joined(separator: ", ") ?? "none"
                throw ParameterError(key: "column", "column '\(name)' is not in the header of '\(path)'; it has \(names)")
            }
            column = found
        } else {
            column = 0
        }
        if header, !rows.isEmpty { rows.removeFirst() }
        guard !rows.isEmpty else { throw ParameterError(key: "file", "'\(path)' has no data rows") }
        guard rows.contains(where: { $0.count > column }) else {
            let widest = rows.map(\.count).max() ?? 0
            throw ParameterError(
                key: "column", "column \(column) is not in '\(path)', whose rows have at most \(widest) columns (numbered from 0)")
        }
        self.init(values: rows.map { $0.count > column ? CSVFile.value($0[column]) : .null })
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        self
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        let position = instant.index % values.count
        return values[position < 0 ? position + values.count : position]
    }
}

extension String {
    fileprivate var trimmed: Substring {
        guard let first = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else { return "" }
        return self[first...last]
    }
}
