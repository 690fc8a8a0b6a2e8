import Report
import Scenario
import Simulator

/// `devsim run --find-capacity`: what a search may be asked, and what its answer says.
extension RunCommand {
    /// The search `--find-capacity`, `--slo`, `--step` and `--warmup` ask of a run of `plan`
    /// (`CapacityRequest`), said in the log; `nil` without `--find-capacity`. A search the fleet
    /// cannot carry out is refused before anything connects.
    func capacitySettings(_ plan: FleetPlan) throws(UsageError) -> CapacitySettings? {
        let request = CapacityRequest(
            find: options.findCapacity, slos: options.slos, step: options.capacityStep, warmUp: options.capacityWarmUp)
        let asked = try UsageError.of { () throws(RunCheckError) in
            try request.settings(for: plan, dryRun: options.dryRun, messages: options.messages, verify: options.verify)
        }
        guard let settings = asked else { return nil }
        let slos: String = options.slos.map(\.text).joined(separator: ", ")
        let within = Int(CapacitySearch.defaultResolution * 100)
        let timing = "each step \(formatSeconds(settings.warmUp)) of warm-up, then \(formatSeconds(settings.step)) measured"
        logger.info(
            "capacity: from \(Assertion.number(settings.baseRatePerSecond))/s, doubling while every step meets \(slos), then "
                + "bisecting to within \(within) %; \(timing)")
        return settings
    }

    /// Says the search's answer, last, where a reader looks first: on standard output, which
    /// `--quiet` leaves alone, with how sure it is and what held the steps that broke back
    /// (`CapacityFigures.answer`). Exit 4 when no rate met every SLO each time it was held.
    func tell(_ capacity: CapacityFigures) -> ExitCode {
        if let broke = capacity.brokeAt, let first = capacity.brokenFirst {
            let others = broke.verdicts.filter { !$0.passed && $0.assertion != first.assertion }.map(\.assertion)
            let also = others.isEmpty ? "" : " (also broken: \(others.joined(separator: ", ")))"
            logger.log(
                capacity.foundNoRate ? .error : .info,
                "capacity: \(Assertion.number(broke.targetPerSecond))/s (step \(broke.step)) broke \(first.assertion) first: "
                    + first.message + also + (broke.limitedBy.map { "; limited by \($0)" } ?? ""))
        }
        answer(capacity.answer(searchLimit: CapacitySearch.defaultMaximum))
        return capacity.foundNoRate ? .expectationFailed : .success
    }

    /// The answer, on standard output and in the log.
    private func answer(_ line: String) {
        write(line + "\n", to: .standardOutput)
        logger.info(line)
    }
}
