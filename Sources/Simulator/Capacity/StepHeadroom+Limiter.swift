import Reactor
import Report

/// The judgement of what limited a step lives beside the loops, since the best a loop can do
/// depends on its own timer slack (`EventLoop.timerSlackNanoseconds`).
extension StepHeadroom {
    /// A share at or above which there was no room to spare.
    package static let saturated = 90.0
    /// Stolen time at or above which the machine is not devsim's to measure with.
    package static let heavySteal = 10.0
    /// The slack an event loop gives the kernel for its timers (`EventLoop.timerSlackNanoseconds`).
    static let timerSlackMs = Double(EventLoop.timerSlackNanoseconds) / 1e6

    /// What limited a step that broke `slo` (the one broken first), and why. `ackLatencyP99Ms`:
    /// the step's acknowledgement latency, where its messages were acknowledged (QoS 1/2) and
    /// none piled up waiting for the window (it published what it scheduled).
    package func limiter(brokenFirst slo: Assertion?, ackLatencyP99Ms: Double? = nil) -> (limiter: Limiter, reason: String) {
        let loops = "devsim's busiest loop was \(Self.percent(busiestLoopPercent)) busy"
        // CPU time is what the hypervisor left: a loop that ran all of that was saturated,
        // however much it stole (seen: 26 %, which no loop's 74 % would have shown).
        let given = stealPercent.map { Swift.max(100 - $0, 1) / 100 } ?? 1
        let stolen = stealPercent.map { $0 >= 1 ? " of the time the hypervisor left it (it stole \(Self.percent($0)))" : "" } ?? ""
        if busiestLoopPercent / given >= Self.saturated || processCPUPercent / given >= Self.saturated {
            let what =
                busiestLoopPercent / given >= Self.saturated
                ? "its busiest loop was \(Self.percent(busiestLoopPercent / given)) busy\(stolen)"
                : "it used \(Self.percent(processCPUPercent / given)) of its cores\(stolen)"
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
        // A window of unacknowledged messages that keeps up holds one back only as long as the
        // broker takes to acknowledge: with acknowledgements within a lateness limit, no message
        // waited that long for the broker, and the loops' thread was not run in time. Seen in a
        // search whose first step, 1,000/s at QoS 1, broke lateness.p99<5ms beside other tests.
        if let slo, slo.metric.name.hasPrefix("lateness."), let ack = ackLatencyP99Ms, ack < slo.limit {
            return (
                .machine,
                "this machine: the loops were late with room to spare while the broker acknowledged within "
                    + "\(Assertion.number(ack)) ms (p99), so no message waited that long for it: their thread was not run "
                    + "in time (other work on the machine)"
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
