import Report

/// The report module's choice of a report's format, as the parser needs it: a file name and a
/// format that disagree are a usage error, with the report module's message.
extension ReportFormat {
    /// `ReportOutput.outputs`, its refusal a usage error.
    static func forReports(_ paths: [String], pathLabel: String, given: ReportFormat?, givenLabel: String) throws(UsageError)
        -> [ReportOutput]
    {
        try UsageError.of { () throws(ReportFormatError) in
            try ReportOutput.outputs(paths, pathLabel: pathLabel, given: given, givenLabel: givenLabel)
        }
    }

    /// `ReportFormat.check`, its refusal a usage error.
    static func checkOutput(_ path: String, of command: String, writes format: ReportFormat) throws(UsageError) {
        try UsageError.of { () throws(ReportFormatError) in try check(output: path, of: command, writes: format) }
    }
}
