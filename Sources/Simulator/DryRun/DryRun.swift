import Glibc
import Logging
import Reactor
import Report
import Signals

/// `run --dry-run`: what the fleet would publish, without a broker, on a virtual clock, from the
/// same behaviours and roles a run has (`DryRunConnection`). Every connection's CONNECT carries
/// its will and gets its CONNACK at time zero, where its roles say what they say then
/// (availability, discovery configs, a Sparkplug node's births) and its devices their states;
/// each device ticks first at its start delay (0 without a `jitter`), and the whole run is
/// printed at once, timestamps as if the time had passed (`DryRunPrinter` says the lines).
public struct DryRun {
    public var plan: FleetPlan
    public var seed: UInt64
    /// Virtual time to cover.
    public var duration: Duration?
    /// Ticks' messages to print over the whole fleet, as a run's `--messages` counts them: what
    /// is said beside the ticks is not counted.
    public var messages: Int?
    /// Where the scripts' `print` and failures go (`script:`).
    public var logger: Logger?

    public init(plan: FleetPlan, seed: UInt64, duration: Duration?, messages: Int?, logger: Logger? = nil) {
        self.logger = logger
        self.plan = plan
        self.seed = seed
        self.duration = duration
        self.messages = messages
    }

    /// Runs the virtual clock, handing each line (newline included) to `emit`. Returns the count
    /// of ticks' messages.
    @discardableResult
    public func run(wallStart: Double = WallTime.now().secondsSinceEpoch, emit: @escaping (String) -> Void) -> Int {
        let printer = DryRunPrinter(messages: messages) { emit($0.line) }
        let end = duration.map { MonotonicClock.nanoseconds($0) }
        guard end != 0 else { return 0 }
        Self.play(plan.connections, seed: seed, wallStart: wallStart, printer: printer, end: end, logger: logger)
        return printer.printed
    }

    /// `connections` connected at time zero, then their devices' ticks and their roles' timers in
    /// time order until `end` (exclusive), the printer's budget is spent, or nothing more is sent.
    static func play(
        _ connections: [ConnectionPlan], seed: UInt64, wallStart: Double, printer: DryRunPrinter, end: UInt64?, logger: Logger?
    ) {
        let clock = DryRunClock()
        // One interpreter for the dry run's scripts, as a run has one a loop: made for the first.
        var scripts: ScriptHost?
        func host() -> ScriptHost {
            if let scripts { return scripts }
            let made = ScriptHost.offline(logger: logger)
            scripts = made
            return made
        }
        let dry = connections.map {
            DryRunConnection(plan: $0, seed: seed, wallStart: wallStart, clock: clock, printer: printer, scripts: host())
        }
        // Ticks due strictly before the end: a run of D seconds at R per second is D × R ticks.
        let last = end.map { $0 > 0 ? $0 - 1 : 0 } ?? .max
        // Devices whose timer is scheduled: once none is, nothing more is sent.
        var ticking = 0
        var devices = 0
        for connection in dry {
            connection.connect()
            for device in connection.devices {
                devices += 1
                // A profile that stops for good puts the next tick at "never": it is not scheduled.
                guard let deadline = device.deadline else { continue }
                clock.heap.schedule(device.timer, at: deadline)
                ticking += 1
            }
        }
        var silent = 0
        let silentLimit = max(Self.silentTicks, 10 * devices)
        while ticking > 0, printer.hasBudget, silent < silentLimit, let timer = clock.popDue(by: last) {
            guard let device = timer.target as? DryRunDevice else {
                timer.target.timerFired(timer, now: clock.now)
                continue
            }
            let ticked = device.tick()
            silent = ticked.printed > 0 ? 0 : silent + 1
            guard ticked.more else { break }
            if let deadline = device.deadline { clock.heap.schedule(device.timer, at: deadline) } else { ticking -= 1 }
        }
        // The heap holds the timers unretained: emptied while their owners live.
        withExtendedLifetime(dry) { clock.heap.removeAll() }
    }

    /// Ticks in a row that send nothing (by exception, on a change) after which a dry run ends,
    /// or ten rounds of the fleet if more: values that never change would otherwise keep a run
    /// bounded only by `--messages` going for ever (found by review).
    static let silentTicks = 100_000
}
