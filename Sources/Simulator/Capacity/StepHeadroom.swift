import Reactor

/// devsim's own load, and its machine's, at one instant of a capacity search: read at the start
/// and the end of each step's hold, their difference is the step's `StepHeadroom`.
package struct GeneratorLoad: Sendable {
    package var time: UInt64
    /// The cores devsim may use (`CPUTime.usableCores`).
    package var cores: Int
    /// Each event loop's thread's CPU time so far (`EventLoop.cpuNanoseconds`).
    package var loopsCPU: [UInt64]
    package var processCPU: UInt64
    package var machine: CPUTime.Machine
    /// The machine's scheduling delay so far (`SchedulingProbe`).
    package var schedulingDelay: Histogram

    package init(
        time: UInt64, cores: Int, loopsCPU: [UInt64], processCPU: UInt64, machine: CPUTime.Machine, schedulingDelay: Histogram
    ) {
        self.time = time
        self.cores = cores
        self.loopsCPU = loopsCPU
        self.processCPU = processCPU
        self.machine = machine
        self.schedulingDelay = schedulingDelay
    }
}

/// What a capacity step's hold left devsim and its machine to spare (the report's `headroom`),
/// and from it, what limited a step that broke an SLO (`Limiter`): a broker that cannot keep up
/// shows as its figures (acknowledgement latency, loss, refusals) with devsim at ease; a load
/// generator that cannot, as its own loops at work all the time; a machine that cannot, as its
/// cores busy with other work, or waking a thread late.
public struct StepHeadroom: Codable, Sendable, Equatable {
    /// The busiest event loop's CPU time over the hold, in percent of the hold: one loop at
    /// 100 % holds its connections back, whatever the others do. CPU time, not the time between
    /// its waits: a thread ready to run while another has the core is the machine's doing.
    public var busiestLoopPercent: Double
    /// devsim's CPU time over the hold, in percent of the cores it may use.
    public var processCPUPercent: Double
    /// The machine's cores busy (stolen time included), and stolen by a hypervisor, in percent;
    /// absent where `/proc/stat` could not be read.
    public var machineCPUPercent: Double?
    public var stealPercent: Double?
    /// How late a thread asking to wake each millisecond woke, p99, in milliseconds: the
    /// machine's own scheduling delay, which no generator on it can beat (`SchedulingProbe`).
    public var schedulingDelayP99Ms: Double?

    /// The difference of two readings.
    package init(from start: GeneratorLoad, to end: GeneratorLoad) {
        let wall = Double(end.time &- start.time)
        // A loop that has ended reads 0: no share, rather than a wrapped one.
        let busy = zip(end.loopsCPU, start.loopsCPU).map { $0 >= $1 ? Double($0 - $1) : 0 }
        busiestLoopPercent = wall > 0 ? ((busy.max() ?? 0) * 100 / wall).thousandths : 0
        processCPUPercent = wall > 0 ? (Double(end.processCPU &- start.processCPU) * 100 / wall / Double(max(1, end.cores))).thousandths : 0
        let shares = end.machine.shares(since: start.machine)
        machineCPUPercent = shares?.busy.thousandths
        stealPercent = shares?.steal.thousandths
        let delay = end.schedulingDelay.since(start.schedulingDelay)
        schedulingDelayP99Ms = delay.isEmpty ? nil : (Double(delay.percentile(99)) / 1e6).thousandths
    }

    package init(
        busiestLoopPercent: Double, processCPUPercent: Double, machineCPUPercent: Double? = nil, stealPercent: Double? = nil,
        schedulingDelayP99Ms: Double? = nil
    ) {
        self.busiestLoopPercent = busiestLoopPercent
        self.processCPUPercent = processCPUPercent
        self.machineCPUPercent = machineCPUPercent
        self.stealPercent = stealPercent
        self.schedulingDelayP99Ms = schedulingDelayP99Ms
    }

    /// A share at or above which there was no room to spare.
    package static let saturated = 90.0
    /// Stolen time at or above which the machine is not devsim's to measure with.
    package static let heavySteal = 10.0
    /// The slack an event loop gives the kernel for its timers (`EventLoop.timerSlackNanoseconds`).
    static let timerSlackMs = Double(EventLoop.timerSlackNanoseconds) / 1e6

    /// What limited a step that broke `slo` (the one broken first), and why.
    package func limiter(brokenFirst slo: Assertion?) -> (limiter: Limiter, reason: String) {
        let loops = "devsim's busiest loop was \(Self.percent(busiestLoopPercent)) busy"
        if busiestLoopPercent >= Self.saturated || processCPUPercent >= Self.saturated {
            let what =
                busiestLoopPercent >= Self.saturated
                ? "its busiest loop was \(Self.percent(busiestLoopPercent)) busy"
                : "it used \(Self.percent(processCPUPercent)) of its cores"
            return (.devsim, "devsim: \(what); run more shards (--shard) or on a bigger machine")
        }
        if let machine = machineCPUPercent, machine >= Self.saturated {
            return (
                .machine,
                "this machine: its cores were \(Self.percent(machine)) busy, devsim's part \(Self.percent(processCPUPercent)); "
                    + "a broker beside devsim, or other work, takes the rest: run them on machines of their own"
            )
        }
        if let steal = stealPercent, steal >= Self.heavySteal {
            return (.machine, "this machine: the hypervisor took \(Self.percent(steal)) of its time (steal); run on a quieter one")
        }
        // The best a loop can do is the machine's delay and its own timer slack (DESIGN: the
        // lateness target is cyclictest's p99 plus 0.5 ms); said of the high percentiles the
        // probe's p99 speaks for. A lateness SLO's limit is in milliseconds, as the delay is.
        if let slo, ["lateness.p99", "lateness.p999", "lateness.max"].contains(slo.metric.name), let delay = schedulingDelayP99Ms,
            delay + Self.timerSlackMs >= slo.limit
        {
            return (
                .machine,
                "this machine: its own scheduling delay (p99 \(Assertion.number(delay)) ms, a thread waking every millisecond) "
                    + "and the loops' timer slack (\(Assertion.number(Self.timerSlackMs)) ms) reach \(slo.text); "
                    + "no generator on it can be more punctual"
            )
        }
        let broken = slo.map { " (\($0.text))" } ?? ""
        // Late with room to spare: the messages waited for the broker, behind a window of
        // unacknowledged ones or a socket it did not empty (lateness counts the wait).
        let waited = slo?.metric.name.hasPrefix("lateness.") == true ? ": the messages waited for it" : ""
        return (.broker, "the broker\(broken)\(waited), while \(loops) and the machine had room")
    }

    private static func percent(_ value: Double) -> String { "\(Int(value.rounded())) %" }
}

/// What held a capacity step back from its SLOs.
public enum Limiter: String, Codable, Sendable {
    /// The broker: devsim and its machine had room to spare.
    case broker
    /// devsim itself: its loops, or its CPU, were saturated.
    case devsim
    /// The machine devsim runs on: its cores busy with other work (the broker beside devsim),
    /// stolen by a hypervisor, or waking threads too late.
    case machine
}
