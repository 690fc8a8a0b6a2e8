import Signals

extension ScenarioReader {
    /// `broker.credentials: devices.csv`, read whole at load: its errors name the CSV file and
    /// line. Which devices it lacks is known only once their ids are made (`FleetPlan`).
    func credentials(_ node: Node) -> CredentialsFile? {
        guard let text = string(node, "credentials") else { return nil }
        let path = resolve(text)
        let bytes: [UInt8]
        do throws(WholeFile.ReadError) {
            bytes = try WholeFile.bytes(at: path)
        } catch {
            report(node.mark, "cannot read the credentials file '\(path)': \(error.reason)")
            return nil
        }
        let (rows, quoteProblems) = CSVFile.parse(bytes)
        let location = SourceLocation(file: file, line: node.mark.line, column: node.mark.column)
        guard let header = rows.first else {
            report(node.mark, "the credentials file '\(path)' is empty: expected a header such as 'id,username,password'")
            return nil
        }
        var problems = quoteProblems.map { Diagnostic(file: path, line: $0.line, column: $0.column, message: $0.message) }
        func problem(_ line: Int, _ message: String) {
            problems.append(Diagnostic(file: path, line: line, column: 1, message: message))
        }
        let names = header.fields.map { $0.trimmingBlanks }
        let known = ["id"] + CredentialsFile.Column.allCases.map(\.rawValue)
        var columns: [Int: CredentialsFile.Column] = [:]
        var idColumn: Int?
        var seen: Set<String> = []
        for (index, name) in names.enumerated() {
            if !seen.insert(name).inserted {
                problem(header.line, "the column '\(name)' is given twice")
            } else if name == "id" {
                idColumn = index
            } else if let column = CredentialsFile.Column(rawValue: name) {
                columns[index] = column
            } else {
                let hint = Suggestion.closest(to: name, among: known).map { "did you mean '\($0)'?" }
                problem(header.line, "unknown column '\(name)': " + (hint ?? "expected " + known.map { "'\($0)'" }.joined(separator: ", ")))
            }
        }
        if idColumn == nil { problem(header.line, "expected an 'id' column, which names each row's device") }
        let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        var byID: [String: CredentialsFile.Row] = [:]
        for row in rows.dropFirst() {
            guard row.fields.count == names.count else {
                problem(row.line, "expected \(names.count) fields, as the header has, found \(row.fields.count)")
                continue
            }
            guard let idColumn else { continue }
            let id = row.fields[idColumn]
            guard !id.isEmpty else {
                problem(row.line, "this row has no id")
                continue
            }
            if let first = byID[id] {
                problem(row.line, "the device '\(id)' has a row already, on line \(first.line)")
                continue
            }
            var cells: [CredentialsFile.Column: String] = [:]
            for (index, column) in columns where !row.fields[index].isEmpty {
                let cell = row.fields[index]
                if column == .deviceKey, let reason = AzureIoTHub.keyProblem(cell) {
                    // Its reason, never the key.
                    problem(row.line, "the device '\(id)' has a 'deviceKey' that is not base64: \(reason)")
                    continue
                }
                // A path in the file is the file's, as one in a scenario is the scenario's.
                let isPath = column == .certificate || column == .key
                cells[column] = isPath && !cell.hasPrefix("/") ? folder + cell : cell
            }
            byID[id] = CredentialsFile.Row(cells: cells, line: row.line)
        }
        report(problems)
        guard problems.isEmpty else { return nil }
        return CredentialsFile(path: path, location: location, columns: columns.values.sorted { $0.rawValue < $1.rawValue }, rows: byID)
    }
}

extension String {
    /// Without the spaces and tabs around it: a header written `id, username`.
    fileprivate var trimmingBlanks: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
