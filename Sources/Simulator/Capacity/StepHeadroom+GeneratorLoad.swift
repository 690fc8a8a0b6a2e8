import Report

/// A step's headroom is read from the runtime's own load: two `GeneratorLoad` readings.
extension StepHeadroom {
    /// The difference of two readings.
    package init(from start: GeneratorLoad, to end: GeneratorLoad) {
        let wall = Double(end.time &- start.time)
        // A loop that has ended reads 0: no share, rather than a wrapped one.
        let busy = zip(end.loopsCPU, start.loopsCPU).map { $0 >= $1 ? Double($0 - $1) : 0 }
        let shares = end.machine.shares(since: start.machine)
        let delay = end.schedulingDelay.since(start.schedulingDelay)
        self.init(
            busiestLoopPercent: wall > 0 ? ((busy.max() ?? 0) * 100 / wall).thousandths : 0,
            processCPUPercent: wall > 0
                ? (Double(end.processCPU &- start.processCPU) * 100 / wall / Double(max(1, end.cores))).thousandths : 0,
            machineCPUPercent: shares?.busy.thousandths, stealPercent: shares?.steal.thousandths,
            schedulingDelayP99Ms: delay.isEmpty ? nil : (Double(delay.percentile(99)) / 1e6).thousandths)
    }
}
