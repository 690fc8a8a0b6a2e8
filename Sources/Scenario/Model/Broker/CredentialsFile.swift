/// `broker.credentials: devices.csv`: each device's secrets, kept out of the scenario. A CSV file
/// with a header: `id`, and any of the columns of `Column`. A device's cell wins over the
/// scenario's template for that setting; an empty cell leaves the template to apply.
package struct CredentialsFile: Sendable, Equatable {
    /// The columns a credentials file may have besides `id`.
    package enum Column: String, Sendable, CaseIterable {
        case username, password, certificate, key
        /// What `{token}` stands for in `broker.username` or `password` (ThingsBoard's access
        /// token as the user name: `username: "{token}"`).
        case token
        /// An Azure IoT Hub device's own key (base64), over `azureIoTHub`'s `deviceKey` or
        /// `groupKey`: the key its SAS tokens are signed with.
        case deviceKey
    }

    /// One device's cells, non-empty ones only; paths resolved against the file's folder.
    package struct Row: Sendable, Equatable {
        package var cells: [Column: String]
        /// The line the row starts on, for messages.
        package var line: Int

        package init(cells: [Column: String], line: Int) {
            self.cells = cells
            self.line = line
        }

        package subscript(column: Column) -> String? { cells[column] }
    }

    /// The file as the scenario names it, resolved against the scenario's folder.
    package var path: String
    /// Where the scenario names it.
    package var location: SourceLocation
    /// The columns of the header, `id` aside.
    package var columns: [Column]
    package var rows: [String: Row]

    package init(path: String, location: SourceLocation, columns: [Column], rows: [String: Row]) {
        self.path = path
        self.location = location
        self.columns = columns
        self.rows = rows
    }
}

/// The rows in id order, each's cells in column order: a group's fingerprint (`GroupPlan`) is a
/// dump, and two equal dictionaries may dump in two orders, which made every reload of an
/// unchanged scenario with a credentials file restart all its connections (found by review).
extension CredentialsFile: CustomReflectable {
    package var customMirror: Mirror {
        let rows = self.rows.sorted { $0.key < $1.key }.map { id, row in
            (id, row.line, Column.allCases.compactMap { column in row[column].map { (column.rawValue, $0) } })
        }
        return Mirror(self, children: ["path": path, "columns": columns, "rows": rows])
    }
}
