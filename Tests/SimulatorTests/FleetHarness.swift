import Dispatch
import Reactor
import Report
import Scenario
import Simulator
import TestSupport
import Testing

/// Runs a fleet made from scenario text on a thread of its own, so a test can act on the
/// broker while the run goes on, then collect the result.
final class FleetHarness: Sendable {
    let fleet: Fleet
    private let outcome = Locked<Result<RunResult, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)
    let log = LogLines()

    init(_ yaml: String, port: UInt16, settings: RunSettings = RunSettings(), environment: [String: String] = [:]) throws {
        let scenario = try ScenarioLoader.load(text: yaml, file: "test.yaml", environment: environment)
        var settings = settings
        settings.host = "127.0.0.1"
        settings.port = Int(port)
        let log = self.log
        let logger = Logger(minimumLevel: .debug) { line in log.append(line) }
        fleet = try Fleet(plan: FleetPlan(scenarios: [scenario], settings: settings), settings: settings, logger: logger)
    }

    func start() {
        DispatchQueue.global().async { [self] in
            let result = Result { try fleet.run() }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// Waits for the run to end; `nil` if it did not within `timeout` seconds.
    func result(timeout: Double) throws -> RunResult? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return try outcome.withLock { $0 }?.get()
    }

    /// Restarts `broker` while the run goes on: kills it once the fleet has published
    /// `published` messages, waits for every connection to be down, and starts it again
    /// `downFor` seconds later.
    /// - Returns: what the fleet had published when every connection was down.
    @discardableResult
    func restart(
        _ broker: MosquittoBroker, afterPublishing published: Int, downFor seconds: Double,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Int {
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { fleet.totals[.published] >= published }, sourceLocation: sourceLocation)
        broker.kill()
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { fleet.totals.connectionsUp == 0 }, sourceLocation: sourceLocation)
        let down = fleet.totals[.published]
        TestClock.sleep(seconds)
        try broker.restart()
        return down
    }

    /// Starts, waits and returns the result in one go.
    static func run(_ yaml: String, port: UInt16, settings: RunSettings, timeout: Double = 30) throws -> RunResult? {
        let harness = try FleetHarness(yaml, port: port, settings: settings)
        harness.start()
        return try harness.result(timeout: timeout)
    }
}

extension Totals {
    /// Every tick in exactly one place.
    var accountsForEveryTick: Bool { ticksInProgress == 0 }

    /// Ticks counted as scheduled whose message has not yet reached its place: while a run goes
    /// on, at most one per event loop (the tick being made as the counters are read).
    var ticksInProgress: Int {
        self[.scheduled]
            - (self[.published] + self[.skippedOffline] + self[.droppedBuffer] + self[.buffered] + self[.failed] + self[.paused]
                + self[.unchanged])
    }
}

/// What a fleet logged during a test.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}
