import Reactor
import Report

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
