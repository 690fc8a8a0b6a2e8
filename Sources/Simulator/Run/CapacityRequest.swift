import Report

/// `--find-capacity`, `--slo`, `--step` and `--warmup`: the capacity search a run is asked
/// for, and whether its plan can carry it out, known before anything connects.
public struct CapacityRequest: Sendable {
    /// `--find-capacity`.
    public var find = false
    /// `--slo`: what each step must meet.
    public var slos: [Assertion] = []
    /// `--step` and `--warmup`; `nil`: not given (the defaults).
    public var step: Duration? = nil
    public var warmUp: Duration? = nil

    public init(find: Bool = false, slos: [Assertion] = [], step: Duration? = nil, warmUp: Duration? = nil) {
        self.find = find
        self.slos = slos
        self.step = step
        self.warmUp = warmUp
    }

    /// The search a run of `plan` carries out (from the scenarios' own rate, the sum of every
    /// device's); `nil` without `--find-capacity`. A search the run cannot carry out, or flags
    /// of a search without one, are refused in a sentence naming the flag.
    public func settings(for plan: FleetPlan, dryRun: Bool, messages: Int?, verify: Bool) throws(RunCheckError) -> CapacitySettings? {
        guard find else {
            if !slos.isEmpty || step != nil || warmUp != nil {
                let given = [slos.isEmpty ? nil : "--slo", step == nil ? nil : "--step", warmUp == nil ? nil : "--warmup"]
                    .compactMap { $0 }
                throw RunCheckError(
                    "\(given.joined(separator: ", ")) \(given.count == 1 ? "is" : "are") for --find-capacity, which is not given")
            }
            return nil
        }
        guard !slos.isEmpty else {
            throw RunCheckError("--find-capacity needs the SLOs each step must meet: --slo 'lateness.p99<5ms' --slo 'p99<50ms'")
        }
        if let refusal = Self.refusal(plan, dryRun: dryRun, messages: messages) {
            throw RunCheckError("--find-capacity: \(refusal)")
        }
        let unjudgeable = slos.compactMap { $0.unjudgeableReason(plan: plan, verify: verify) }
        guard unjudgeable.isEmpty else { throw RunCheckError("--slo: " + unjudgeable.joined(separator: "; ")) }
        if let lost = slos.first(where: { $0.metric.name == "lost" }), let refusal = Verifier.stepLossRefusal(plan: plan) {
            throw RunCheckError("--slo: \(lost.text): \(refusal)")
        }
        let base = plan.connections.reduce(0.0) { sum, connection in sum + connection.devices.reduce(0) { $0 + $1.perSecond } }
        return CapacitySettings(
            slos: slos, step: step ?? Defaults.capacityStep, warmUp: warmUp ?? Defaults.capacityWarmUp, baseRatePerSecond: base)
    }

    /// Why a run of `plan` cannot search, as a sentence, or `nil` when it can.
    private static func refusal(_ plan: FleetPlan, dryRun: Bool, messages: Int?) -> String? {
        if dryRun { return "a dry run measures nothing to search with" }
        if messages != nil { return "the search sets the run's length; leave out --messages (--duration caps it)" }
        if plan.fleetDeviceCount == 0 { return "the search steps up the devices' rate, and the scenarios have none (subscribers alone)" }
        if plan.shard != nil { return "each shard would search alone: run the search in one process" }
        if !plan.stages.isEmpty { return "the scenario's stages set the rate, which the search must: leave out stages:" }
        if let group = plan.scenarios.flatMap(\.groups).first(where: { !$0.stages.isEmpty }) {
            return "device group '\(group.name)' has stages of its own, which set its rate: leave them out"
        }
        if let device = plan.connections.lazy.flatMap(\.devices).first(where: { !$0.perSecond.isFinite }) {
            return "device group '\(device.group)' publishes at max, which has no rate to step up"
        }
        if let device = plan.connections.lazy.flatMap(\.devices).first(where: { $0.replay != nil }) {
            return "device group '\(device.group)' replays a recording, which has no rate to step up (its pace is the recording's)"
        }
        return nil
    }
}
