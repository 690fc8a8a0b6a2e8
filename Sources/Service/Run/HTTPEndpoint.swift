import Report
import Simulator
import Synchronization

/// A run's `--http` endpoint as a service of its group (`DevsimService`): listens when the
/// group starts it, its routes reading the fleet; tells its event streams of each reload and of
/// the run's end; and stops last, once the run has concluded.
final class HTTPEndpoint: RunService {
    private let settings: DevsimService.Settings
    private let fleet: Fleet
    private let scenarios: [String]
    private let seed: UInt64
    private let logger: Logger
    private let service = Mutex<DevsimService?>(nil)

    init(settings: DevsimService.Settings, fleet: Fleet, scenarios: [String], seed: UInt64, logger: Logger) {
        self.settings = settings
        self.fleet = fleet
        self.scenarios = scenarios
        self.seed = seed
        self.logger = logger
    }

    /// Listens, or says why not after the flag (a port in use), as a usage error.
    func start(in group: ServiceGroup) throws {
        let service: DevsimService
        do {
            service = try DevsimService(settings: settings, fleet: fleet, scenarios: scenarios, seed: seed)
        } catch {
            throw RunCheckError("--http: \(error.message)")
        }
        self.service.withLock { $0 = service }
        var address = settings.address
        address.port = service.port
        logger.info("serving http://\(address)/metrics, /healthz, /readyz, /api/status and POST /api/groups/NAME/pause|resume|rate|scale")
    }

    func stop() {
        service.withLock { $0 }?.stop()
    }

    func reloaded(_ reload: Reload) {
        service.withLock { $0 }?.noteReload(reload)
    }

    /// The run ended with `result`, whose report's outcome is `outcome`.
    func noteFinished(_ result: RunResult, outcome: String) {
        service.withLock { $0 }?.noteFinished(result, outcome: outcome)
    }
}
