import Report
import Scenario
import Simulator

/// `devsim run --find-capacity`: what a search may be asked, and what its answer says.
extension RunCommand {
    /// The search `--find-capacity`, `--slo`, `--step` and `--warmup` ask of a run of `plan`;
    /// `nil` without `--find-capacity`. A search the fleet cannot carry out is refused before
    /// anything connects.
    func capacitySettings(_ plan: FleetPlan) throws(UsageError) -> CapacitySettings? {
        guard options.findCapacity else {
            if !options.slos.isEmpty || options.capacityStep != nil || options.capacityWarmUp != nil {
                let given = [
                    options.slos.isEmpty ? nil : "--slo", options.capacityStep == nil ? nil : "--step",
                    options.capacityWarmUp == nil ? nil : "--warmup",
                ].compactMap { $0 }
                throw UsageError(
                    "\(given.joined(separator: ", ")) \(given.count == 1 ? "is" : "are") for --find-capacity, which is not given")
            }
            return nil
        }
        guard !options.slos.isEmpty else {
            throw UsageError("--find-capacity needs the SLOs each step must meet: --slo 'lateness.p99<5ms' --slo 'p99<50ms'")
        }
        let refusal: String? =
            if options.dryRun {
                "a dry run measures nothing to search with"
            } else if options.messages != nil {
                "the search sets the run's length; leave out --messages (--duration caps it)"
            } else if plan.fleetDeviceCount == 0 {
                "the search steps up the devices' rate, and the scenarios have none (subscribers alone)"
            } else if plan.shard != nil {
                "each shard would search alone: run the search in one process"
            } else if !plan.stages.isEmpty {
                "the scenario's stages set the rate, which the search must: leave out stages:"
            } else if let group = plan.scenarios.flatMap(\.groups).first(where: { !$0.stages.isEmpty }) {
                "device group '\(group.name)' has stages of its own, which set its rate: leave them out"
            } else if let device = plan.connections.lazy.flatMap(\.devices).first(where: { !$0.perSecond.isFinite }) {
                "device group '\(device.group)' publishes at max, which has no rate to step up"
            } else {
                nil
            }
        if let refusal { throw UsageError("--find-capacity: \(refusal)") }
        let unjudgeable = options.slos.compactMap { $0.unjudgeableReason(plan: plan, verify: options.verify) }
        guard unjudgeable.isEmpty else { throw UsageError("--slo: " + unjudgeable.joined(separator: "; ")) }
        if let lost = options.slos.first(where: { $0.metric.name == "lost" }), let refusal = Verifier.stepLossRefusal(plan: plan) {
            throw UsageError("--slo: \(lost.text): \(refusal)")
        }
        let base = plan.connections.reduce(0.0) { sum, connection in sum + connection.devices.reduce(0) { $0 + $1.perSecond } }
        let settings = CapacitySettings(
            slos: options.slos, step: options.capacityStep ?? Defaults.capacityStep,
            warmUp: options.capacityWarmUp ?? Defaults.capacityWarmUp, baseRatePerSecond: base)
        let slos: String = options.slos.map(\.text).joined(separator: ", ")
        let within = Int(CapacitySearch.defaultResolution * 100)
        let timing = "each step \(formatSeconds(settings.warmUp)) of warm-up, then \(formatSeconds(settings.step)) measured"
        logger.info(
            "capacity: from \(Assertion.number(base))/s, doubling while every step meets \(slos), then bisecting to within \(within) %; \(timing)"
        )
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
