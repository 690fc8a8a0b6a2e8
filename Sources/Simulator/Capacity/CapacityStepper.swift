import Reactor
import Report

/// Carries a capacity search out on the run's clock, as a plain state machine: the fleet asks
/// it when it is next due, hands it a reading then, and carries out the action it returns.
/// Each step warms up, then holds; the hold's figures, read as a timeline point is, are judged
/// by the SLOs, and the search (`CapacitySearch`) says which rate comes next.
///
/// A step that broke an SLO leaves messages queued behind it, and the next step, lower, would
/// start under that backlog: measured against mosquitto, a step at 40,000/s after one at
/// 48,000/s began 3.4 s late and broke, while 40,000/s from an unloaded start passed. So after
/// a break the fleet cools down at the scenarios' own rate (which passed) until nothing is
/// queued on a connection that is up, for at least `minimumCoolDown`, and only then warms up
/// the next step. What a connection that is down keeps (`offline: buffer`) is not waited for:
/// it goes out when the connection is back, which no cool-down can hasten.
///
/// With a `lost` SLO, the hold counts what it publishes (`StepWindow`); after it, still at its
/// rate, the search waits for the last of those to arrive: until all have, or none has for
/// `arrivalQuiet`, at most `CapacityFigures.arrivalLimit`. What has not arrived by then is the step's `lost`.
package struct CapacityStepper: Sendable {
    package enum Action: Sendable, Equatable {
        /// Every device's rate is its plan's times this from now on.
        case setMultiplier(Double)
        /// Back at the plan's rates (×1) until what a broken step left queued is sent.
        case coolDown
        /// The search is over: end the run.
        case finish
        /// A hold begins: count what each device publishes from now (`Verifier.openStepWindows`).
        case openStepWindows
        /// The hold is over: count no more of what is published; the readings from now on say
        /// what has arrived (`FigureReading.stepLoss`).
        case closeStepWindows
    }

    private enum Phase: Sendable {
        /// The first step waits for the fleet's connections to be up.
        case connecting
        case warmingUp(until: UInt64)
        case holding(since: FigureReading, until: UInt64)
        /// After a hold with a `lost` SLO: its figures, and what had arrived when last looked.
        case awaitingArrivals(point: Timeline.Point, headroom: StepHeadroom?, received: Int, since: UInt64, due: UInt64, latest: UInt64)
        /// After a broken step, at ×1 until nothing is queued or `latest`; then `next`.
        case coolingDown(next: Double, due: UInt64, latest: UInt64)
        case done
    }

    package static let minimumCoolDown = Duration.seconds(1)
    package static let maximumCoolDown = Duration.seconds(30)
    /// How often a cool-down looks at the queues, and the wait for a step's messages at what
    /// has arrived.
    private static let look: UInt64 = 100_000_000
    /// The wait for a step's messages ends when none has arrived for this long...
    package static let arrivalQuiet = Duration.milliseconds(500)
    /// ... or at the latest `CapacityFigures.arrivalLimit` after the hold.

    package private(set) var figures: CapacityFigures
    private let settings: CapacitySettings
    private var search: CapacitySearch
    private var phase = Phase.connecting
    private let start: UInt64

    package init(settings: CapacitySettings, start: UInt64) {
        self.settings = settings
        self.start = start
        search = CapacitySearch(resolution: settings.resolution, maximum: settings.maximum)
        figures = CapacityFigures(
            slos: settings.slos.map(\.text), stepSeconds: settings.step / .seconds(1), warmUpSeconds: settings.warmUp / .seconds(1),
            baseRatePerSecond: settings.baseRatePerSecond)
    }

    /// When the search next needs a reading; `nil` while it waits for the connections, and
    /// once it is over.
    package var due: UInt64? {
        switch phase {
        case .connecting, .done: nil
        case .warmingUp(let until), .holding(_, let until), .coolingDown(_, let until, _), .awaitingArrivals(_, _, _, _, let until, _):
            until
        }
    }

    /// After a hold with a `lost` SLO: the reading it waits for must say what has arrived
    /// (`FigureReading.stepLoss`).
    package var isAwaitingArrivals: Bool {
        if case .awaitingArrivals = phase { return true }
        return false
    }

    /// After a broken step: the reading it waits for must say what is queued on the
    /// connections up (`FigureReading.queuedWhileUp`).
    package var isCoolingDown: Bool {
        if case .coolingDown = phase { return true }
        return false
    }

    package var isConnecting: Bool {
        if case .connecting = phase { return true }
        return false
    }

    /// The connections are up (or as many as will be): the first step warms up from `now`.
    package mutating func connected(now: UInt64) {
        guard isConnecting else { return }
        phase = .warmingUp(until: now &+ MonotonicClock.nanoseconds(settings.warmUp))
    }

    /// Takes `reading` if it is due: the hold starts after a warm-up, and a hold's end closes
    /// its step. Returns the step closed, if any, and what the fleet must do.
    package mutating func record(_ reading: FigureReading) -> (closed: CapacityStep?, action: Action?) {
        guard let due, reading.time >= due else { return (nil, nil) }
        switch phase {
        case .connecting, .done:
            return (nil, nil)
        case .warmingUp:
            phase = .holding(since: reading, until: reading.time &+ MonotonicClock.nanoseconds(settings.step))
            return (nil, settings.countsLoss ? .openStepWindows : nil)
        case .coolingDown(let next, _, let latest):
            // Without the loops' answer, every queue: a cool-down too long, never one too short.
            guard (reading.queuedWhileUp ?? reading.totals[.buffered]) == 0 || reading.time >= latest else {
                phase = .coolingDown(next: next, due: reading.time &+ Self.look, latest: latest)
                return (nil, nil)
            }
            phase = .warmingUp(until: reading.time &+ MonotonicClock.nanoseconds(settings.warmUp))
            return (nil, .setMultiplier(next))
        case .holding(let since, _):
            let point = reading.point(since: since, start: start)
            let headroom = since.load.flatMap { start in reading.load.map { StepHeadroom(from: start, to: $0) } }
            guard !settings.countsLoss else {
                phase = .awaitingArrivals(
                    point: point, headroom: headroom, received: -1, since: reading.time, due: reading.time &+ Self.look,
                    latest: reading.time &+ MonotonicClock.nanoseconds(CapacityFigures.arrivalLimit))
                return (nil, .closeStepWindows)
            }
            return closeStep(point, headroom: headroom, loss: nil, now: reading.time)
        case .awaitingArrivals(let point, let headroom, let received, let since, _, let latest):
            let loss = reading.stepLoss ?? .none
            let now = reading.time
            let quietSince = loss.received == received ? since : now
            guard loss.lost == 0 || now >= latest || now - quietSince >= MonotonicClock.nanoseconds(Self.arrivalQuiet)
            else {
                phase = .awaitingArrivals(
                    point: point, headroom: headroom, received: loss.received, since: quietSince, due: now &+ Self.look, latest: latest)
                return (nil, nil)
            }
            return closeStep(point, headroom: headroom, loss: reading.stepLoss, now: now)
        }
    }

    /// The run ended: a step whose messages were still awaited is judged on what had arrived
    /// (`reading.stepLoss`, read after the run's settle). Returns it, if there was one.
    package mutating func runEnded(_ reading: FigureReading) -> CapacityStep? {
        guard case .awaitingArrivals(let point, let headroom, _, _, _, _) = phase else { return nil }
        let closed = closeStep(point, headroom: headroom, loss: reading.stepLoss, now: reading.time).closed
        phase = .done
        return closed
    }

    /// Judges the step held over `point` (with `loss`, what it published and what arrived, and
    /// what it left devsim and its machine) and says what comes next.
    private mutating func closeStep(_ point: Timeline.Point, headroom: StepHeadroom?, loss: StepLoss?, now: UInt64) -> (
        closed: CapacityStep?, action: Action?
    ) {
        var verdicts = settings.slos.map { $0.evaluate(point, loss: loss) }
        if point.published == 0 {
            // Its percentiles are of nothing, and would pass: a fleet that was down, or
            // held up, measured nothing at this rate.
            verdicts.append(
                Verdict(
                    assertion: "published>0", passed: false, actual: 0,
                    message: "nothing was published in the step: the connections were down, or devsim held up"))
        } else if let loss, loss.published == 0 {
            // A `lost` of nothing would pass too: no message of the step had a number to count by.
            verdicts.append(
                Verdict(
                    assertion: "lost counted", passed: false, actual: 0,
                    message: "no message of the step had a sequence number devsim could read, to count what it lost by"))
        }
        let broken = zip(settings.slos, verdicts).filter { !$1.passed }
        let first = broken.max { $0.0.excess($0.1.actual) < $1.0.excess($1.1.actual) }
        var step = CapacityStep(
            step: figures.steps.count + 1, multiplier: search.current,
            targetPerSecond: (settings.baseRatePerSecond * search.current * 100).rounded() / 100, point: point,
            loss: loss, verdicts: verdicts, brokenFirst: first?.0.text, headroom: headroom)
        step.judgeLimiter(slos: settings.slos)
        figures.steps.append(step)
        switch search.stepEnded(passing: step.passed) {
        case .hold(let multiplier) where !step.passed:
            phase = .coolingDown(
                next: multiplier, due: now &+ MonotonicClock.nanoseconds(Self.minimumCoolDown),
                latest: now &+ MonotonicClock.nanoseconds(Self.maximumCoolDown))
            return (step, .coolDown)
        case .hold(let multiplier):
            phase = .warmingUp(until: now &+ MonotonicClock.nanoseconds(settings.warmUp))
            return (step, .setMultiplier(multiplier))
        case .finish:
            phase = .done
            return (step, .finish)
        }
    }
}

extension CapacityStepper {
    /// The step under way, for the status lines and the service (`RunPosition`).
    package var position: RunPosition.Step {
        let shown: RunPosition.Step.Phase =
            switch phase {
            case .connecting: .connecting
            case .warmingUp: .warmingUp
            case .holding: .measuring
            case .awaitingArrivals: .awaitingArrivals
            case .coolingDown: .coolingDown
            case .done: .done
            }
        // Once a step is closed and the next not yet begun, the next one is named.
        let step = figures.steps.count + (shown == .done ? 0 : 1)
        return RunPosition.Step(step: max(1, step), phase: shown, multiplier: search.current)
    }

    package var baseRatePerSecond: Double { settings.baseRatePerSecond }
}
