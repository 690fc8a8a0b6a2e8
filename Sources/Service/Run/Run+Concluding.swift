import Report
import Simulator

/// What a run says once its fleet has ended: the log's last lines, the report files, the
/// `--expect` verdict, the capacity answer, and the exit code (`ExitCode.ofRun`).
extension Run {
    func conclude(_ result: RunResult, plan: FleetPlan, scenarios: [String], seed: UInt64, endpoint: HTTPEndpoint?) -> ExitCode {
        let totals = Figure.line(result.totals.figures) + (result.verify.map { "; verify: " + $0.line } ?? "")
        logger.info("finished: " + totals)
        if let line = result.connectTimings.line { logger.info("connect times: " + line) }
        for group in result.subscribers { logger.info(group.logLine) }
        for host in result.hosts { logger.info(host.logLine) }
        if let warning = result.neverConnectedWarning { logger.warning(warning) }
        var report = RunReport(result: result, scenarios: scenarios, seed: seed)
        report.shard = plan.shard
        endpoint?.noteFinished(result, outcome: report.outcome)
        if !options.expectations.isEmpty {
            let verdicts = options.expectations.map { $0.evaluate(report) }
            report.expectations = verdicts
            say(verdicts)
        }
        if let capacity = result.capacity { tell(capacity) }
        if case .noConnection(let why) = result.reason { logger.error(why) }
        let code = ExitCode.ofRun(ended: result.reason, verdicts: report.expectations ?? [], capacity: result.capacity)
        // Each file on its own: one that cannot be written keeps none of the others from it.
        var unwritten: [String] = []
        for output in options.reports {
            do {
                try write(report, exitCode: code, to: output)
            } catch {
                unwritten.append("\(error)")
            }
        }
        if let warning = result.verify?.warning { logger.warning(warning) }
        guard !unwritten.isEmpty else { return code }
        // Last, where a CI log is read first; the run's own verdict, when it failed, says more
        // than the missing file and keeps its exit code.
        let verdict =
            code == .success
            ? "the run itself ended as asked; exit 1 says the report is missing"
            : "the run's verdict is in this log and in the exit code, \(code.rawValue) (\(code.words))"
        logger.error("the report was not written: \(unwritten.joined(separator: "; ")); " + verdict)
        return code.withReportMissing
    }

    /// Logs each verdict (a failure as an error, so `--quiet` still shows it) and a summary
    /// naming what failed.
    private func say(_ verdicts: [Verdict]) {
        for verdict in verdicts {
            logger.log(verdict.passed ? .info : .error, verdict.logLine)
        }
        let failed = verdicts.filter { !$0.passed }
        guard !failed.isEmpty else {
            logger.info("expectations: all \(verdicts.count) passed")
            return
        }
        logger.error("expectations: \(failed.count) of \(verdicts.count) failed: " + failed.map(\.assertion).joined(separator: ", "))
    }

    /// Says the search's answer, last, where a reader looks first: on standard output, which
    /// `--quiet` leaves alone, with how sure it is and what held the steps that broke back
    /// (`CapacityFigures.answer`).
    private func tell(_ capacity: CapacityFigures) {
        if let broke = capacity.brokeAt, let first = capacity.brokenFirst {
            let others = broke.verdicts.filter { !$0.passed && $0.assertion != first.assertion }.map(\.assertion)
            let also = others.isEmpty ? "" : " (also broken: \(others.joined(separator: ", ")))"
            logger.log(
                capacity.foundNoRate ? .error : .info,
                "capacity: \(Assertion.number(broke.targetPerSecond))/s (step \(broke.step)) broke \(first.assertion) first: "
                    + first.message + also + (broke.limitedBy.map { "; limited by \($0)" } ?? ""))
        }
        let answer = capacity.answer(searchLimit: CapacitySearch.defaultMaximum)
        output(answer + "\n")
        logger.info(answer)
    }
}
