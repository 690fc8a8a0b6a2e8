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
}
