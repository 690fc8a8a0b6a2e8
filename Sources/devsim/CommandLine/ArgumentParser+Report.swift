import Report
import Scenario

extension ArgumentParser {
    /// `report merge|csv|html …`: `arguments` begin with the subcommand.
    static func parseReport(_ arguments: [String]) throws(UsageError) -> Command {
        let rest = Array(arguments.dropFirst())
        switch arguments[0] {
        case "merge":
            return .reportMerge(try parseReportMerge(rest))
        case "csv", "html":
            return .reportConvert(try parseReportConvert(rest, to: arguments[0] == "csv" ? .csv : .html))
        default:
            let hint = Suggestion.closest(to: arguments[0], among: ["merge", "csv", "html"]).map { "did you mean '\($0)'? " } ?? ""
            throw UsageError(
                "report: unknown subcommand '\(arguments[0])'; \(hint)the subcommands are 'merge REPORT...', 'csv REPORT' and 'html REPORT'"
            )
        }
    }

    /// `report merge [--output FILE] REPORT...`.
    static func parseReportMerge(_ arguments: [String]) throws(UsageError) -> ReportMergeOptions {
        let (values, reports) = try split(arguments, command: "report merge", flags: [("--output", "FILE"), ("--force", nil)])
        guard !reports.isEmpty else { throw UsageError("report merge: name at least one report file") }
        return ReportMergeOptions(reports: reports, output: values["--output"]?.last, force: values["--force"] != nil)
    }

    /// `report csv|html [--output FILE] REPORT`.
    static func parseReportConvert(_ arguments: [String], to format: ReportFormat) throws(UsageError) -> ReportConvertOptions {
        let command = "report \(format.rawValue)"
        let (values, reports) = try split(arguments, command: command, flags: [("--output", "FILE")])
        guard reports.count == 1 else { throw UsageError("\(command): name one report file, found \(reports.count)") }
        if let output = values["--output"]?.last { try ReportFormat.checkOutput(output, of: command, writes: format) }
        return ReportConvertOptions(format: format, report: reports[0], output: values["--output"]?.last)
    }
}
