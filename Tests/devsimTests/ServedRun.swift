import Dispatch
import Foundation
import Report
import Scenario
import Service
import Simulator
import Synchronization

/// `devsim run FILE --http 0` in this process: the scenario's fleet and its service, wired as
/// the command wires them (`DevsimService(settings:fleet:…)`, the finished run told, the
/// service stopped), with settings a test sets directly. So a test reaches the hooks no flag or
/// variable of the binary does (`RunSettings.stallFirstLoop`,
/// `DevsimService.Settings.pageTestHand`).
final class ServedRun: Sendable {
    let fleet: Fleet
    let service: DevsimService
    private let scenarios: [String]
    private let seed: UInt64
    private let lines = Lines()
    private let outcome = Mutex<Result<RunResult, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts the run of `file` against the broker on `brokerPort`, its service on a free
    /// loopback port; `settings` and `service` adjust what the command line would have set
    /// (`--duration`, `--ready`, `--stats-interval 0` is the default here).
    init(
        file: String, brokerPort: UInt16, settings adjust: (inout RunSettings) -> Void = { _ in }, logLevel: Logger.Level = .info,
        service adjustService: (inout DevsimService.Settings) -> Void = { _ in }
    ) throws {
        let scenario = try ScenarioLoader.load(file: file, environment: [:])
        // As `devsim run` makes them: a loop per core, a random seed.
        var settings = RunSettings(
            host: "127.0.0.1", port: Int(brokerPort), seed: UInt64.random(in: 0...UInt64.max),
            loops: ProcessInfo.processInfo.activeProcessorCount, statsInterval: nil)
        adjust(&settings)
        let lines = self.lines
        let logger = Logger(minimumLevel: logLevel) { line in lines.append(line) }
        fleet = try Fleet(plan: FleetPlan(scenarios: [scenario], settings: settings), settings: settings, logger: logger)
        var serviceSettings = DevsimService.Settings(
            address: HTTPAddress(port: 0), version: "test", startTime: Date().timeIntervalSince1970)
        adjustService(&serviceSettings)
        scenarios = [scenario.name]
        seed = settings.seed
        service = try DevsimService(settings: serviceSettings, fleet: fleet, scenarios: scenarios, seed: seed)
        DispatchQueue.global().async { [self] in
            let result = Result { try fleet.run() }
            if case .success(let result) = result {
                service.noteFinished(result, outcome: RunReport(result: result, scenarios: scenarios, seed: seed).outcome)
            }
            service.stop()
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// Where the service listens.
    var port: Int { service.port }

    /// What the run logged so far, a line each.
    var log: String { lines.text }

    /// The run's result once it ended; `nil` if it did not within `timeout` seconds.
    func result(timeout: Double) throws -> RunResult? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        done.signal()  // for the next caller
        return try outcome.withLock { $0 }?.get()
    }

    /// Asks the run to end, as SIGTERM does, and waits for its result.
    func stop(timeout: Double) throws -> RunResult? {
        fleet.requestStop()
        return try result(timeout: timeout)
    }

    /// The report `--report` would have written.
    func runReport(_ result: RunResult) -> RunReport {
        RunReport(result: result, scenarios: scenarios, seed: seed)
    }

    /// The report `--report` would have written, as its JSON reads.
    func report(_ result: RunResult) throws -> [String: Any] {
        let json = try runReport(result).json()
        return try JSONSerialization.jsonObject(with: json) as? [String: Any] ?? [:]
    }
}

/// What a run logged, from any thread.
private final class Lines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var text: String { lines.withLock { $0.joined() } }
}
