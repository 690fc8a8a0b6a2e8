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
    /// `--quiet` leaves alone, with how sure it is and what held the rate above it back. Exit 4
    /// when even the first step broke an SLO.
    func tell(_ capacity: CapacityFigures) -> ExitCode {
        let found = capacity.capacity, broke = capacity.brokeAt
        if let broke, let first = capacity.brokenFirst {
            let others = broke.verdicts.filter { !$0.passed && $0.assertion != first.assertion }.map(\.assertion)
            let also = others.isEmpty ? "" : " (also broken: \(others.joined(separator: ", ")))"
            logger.log(
                found == nil ? .error : .info,
                "capacity: \(Assertion.number(broke.targetPerSecond))/s (step \(broke.step)) broke \(first.assertion) first: "
                    + first.message + also + (broke.limitedBy.map { "; limited by \($0)" } ?? ""))
        }
        guard let found else {
            if capacity.steps.isEmpty {
                answer("capacity: the run ended before the first step was measured; no answer")
                return .success
            }
            let limited = broke?.limitedBy.map { ", limited by \($0)" } ?? ""
            answer(
                "capacity: even the first step, the scenarios' own \(Assertion.number(capacity.baseRatePerSecond))/s, broke an SLO"
                    + limited + ": lower the scenarios' rates to search from below" + (capacity.sureness.map { "; " + $0 } ?? ""))
            return .expectationFailed
        }
        let rate =
            "\(Assertion.number(found.targetPerSecond))/s (x\(Assertion.number(found.multiplier)) the scenarios' rates, step \(found.step))"
        guard let broke else {
            let capped = found.multiplier * 2 > CapacitySearch.defaultMaximum
            answer(
                "capacity: at least \(rate): no step broke an SLO"
                    + (capped ? ", up to the search's limit of x\(Int(CapacitySearch.defaultMaximum))" : " before the run ended")
                    + (capacity.sureness.map { "; " + $0 } ?? ""))
            return .success
        }
        let limiter =
            switch broke.limiter {
            case .broker?: "; the rate above was limited by the broker"
            case .devsim?, .machine?: "; the rate above was limited by \(broke.limitedBy ?? ""), so this is no figure of the broker's"
            case nil: ""
            }
        answer("capacity: \(rate) met every SLO" + limiter + (capacity.sureness.map { "; " + $0 } ?? ""))
        return .success
    }

    /// The answer, on standard output and in the log.
    private func answer(_ line: String) {
        write(line + "\n", to: .standardOutput)
        logger.info(line)
    }
}
