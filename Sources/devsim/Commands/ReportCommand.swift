import FoundationEssentials
import Report
import Simulator

/// `devsim report merge REPORT...`: shard reports (`run --shard K/N --report FILE`) added up into
/// the report of the whole fleet; `devsim report csv REPORT`: a report's timeline. Either is
/// written to standard output or `--output FILE`.
enum ReportCommand {
    static func merge(_ options: ReportMergeOptions, output: (String) -> Void, errors: (String) -> Void) -> ExitCode {
        if let path = options.output, let problem = OutputFile.problem(path) {
            errors("devsim report merge: --output \(path): \(problem)\n")
            return .usage
        }
        var inputs: [ReportMerge.Input] = []
        for file in options.reports {
            guard let report = read(file, command: "report merge", errors: errors) else { return .usage }
            inputs.append(ReportMerge.Input(name: file, report: report))
        }
        let merged: ReportMerge.Merged
        do throws(ReportMergeError) {
            merged = try ReportMerge.merge(inputs, force: options.force)
        } catch {
            errors("devsim report merge: \(error.file.map { "'\($0)' " } ?? "")\(error.message)\n")
            return .usage
        }
        for warning in merged.warnings { errors("devsim report merge: warning: \(warning)\n") }
        do {
            let json = try merged.report.json()
            if let path = options.output {
                try OutputFile.write(json, to: path)
            } else {
                output(String(decoding: json, as: UTF8.self))
            }
        } catch let error as OutputFileError {
            errors("devsim report merge: \(error)\n")
            return .failure
        } catch {
            errors("devsim report merge: cannot encode the report: \(error)\n")
            return .failure
        }
        return .success
    }

    /// `devsim report csv REPORT`: the report's timeline, a line per interval; `devsim report
    /// html REPORT`: the report as a page of charts (`HTMLReport`).
    static func convert(_ options: ReportConvertOptions, output: (String) -> Void, errors: (String) -> Void) -> ExitCode {
        let command = "report \(options.format.rawValue)"
        if let path = options.output, let problem = OutputFile.problem(path) {
            errors("devsim \(command): --output \(path): \(problem)\n")
            return .usage
        }
        guard let report = read(options.report, command: command, errors: errors) else { return .usage }
        let text: String
        if options.format == .html {
            text = HTMLReport.page(report)
        } else if let timeline = report.timeline {
            text = timeline.csv
        } else {
            errors(
                "devsim \(command): '\(options.report)' has no timeline: it was written with --timeline-interval 0, "
                    + "or by a devsim before timelines\n")
            return .usage
        }
        do {
            if let path = options.output {
                try OutputFile.write(Array(text.utf8), to: path)
            } else {
                output(text)
            }
        } catch {
            errors("devsim \(command): \(error)\n")
            return .failure
        }
        return .success
    }

    /// The JSON report in `file`, or `nil` once the error is told.
    private static func read(_ file: String, command: String, errors: (String) -> Void) -> RunReport? {
        guard let data = FileManager.default.contents(atPath: file) else {
            errors("devsim \(command): cannot read '\(file)'\n")
            return nil
        }
        do {
            return try JSONDecoder().decode(RunReport.self, from: data)
        } catch {
            errors("devsim \(command): '\(file)' is not a devsim JSON report: \(describe(error))\n")
            return nil
        }
    }

    /// A decoding error as a user can act on it: what is wrong, and where in the JSON.
    private static func describe(_ error: Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "missing \"\(key.stringValue)\"\(path(context))"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?: return context.debugDescription + path(context)
        case .dataCorrupted(let context)?: return "not valid JSON\(path(context))"
        default: return "\(error)"
        }
    }
}
