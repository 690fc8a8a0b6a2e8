import Dispatch
import Report
import Simulator
import Synchronization

/// systemd's notifications of a running fleet as a service of its run's group: followed once a
/// second from its start (`SystemdNotifier.follow`), `STOPPING=1` once stopped, and
/// `RELOADING=1` … `READY=1` around a reload. Nothing outside systemd.
final class SystemdService: RunService {
    private let notifier = SystemdNotifier()
    private let fleet: Fleet
    private let readyPercent: Double
    private let timer = Mutex<DispatchSourceTimer?>(nil)

    init(_ fleet: Fleet, readyPercent: Double) {
        self.fleet = fleet
        self.readyPercent = readyPercent
    }

    func start(in group: ServiceGroup) {
        let (notifier, fleet, readyPercent) = (self.notifier, self.fleet, self.readyPercent)
        timer.withLock { $0 = notifier.follow(fleet, readyPercent: readyPercent) }
    }

    func stop() {
        timer.withLock { $0?.cancel() }
    }

    func reloading() { notifier.reloading() }

    func reloaded(_ reload: Reload) { notifier.reloaded() }
}
