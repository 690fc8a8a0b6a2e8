import Dispatch
import Report
import Simulator

/// systemd's notifications of a running fleet, once a second.
extension SystemdNotifier {
    /// Under systemd (`NOTIFY_SOCKET`), once a second until it is cancelled: `READY=1` when
    /// `readyPercent` of the connections are first up (`Readiness`, the rule of `/readyz`),
    /// `STATUS=`, and `WATCHDOG=1` while every loop answers; `STOPPING=1` once cancelled. `nil`
    /// outside systemd. The caller keeps the timer and cancels it when the run ends.
    package func follow(_ fleet: Fleet, readyPercent: Double) -> DispatchSourceTimer? {
        guard isActive else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now(), repeating: 1)
        timer.setEventHandler { self.update(fleet.live(), readyPercent: readyPercent) }
        timer.setCancelHandler { self.stopping() }
        timer.resume()
        return timer
    }

    /// The fleet as `live` has it: ready by `Readiness`, healthy while no loop is stuck, and the
    /// status line `systemctl status` shows.
    package func update(_ live: Fleet.Live, readyPercent: Double) {
        let readiness = live.readiness
        update(
            ready: readiness.isReady(percent: readyPercent), healthy: live.stuckLoops.isEmpty,
            status: "connections \(readiness.up)/\(readiness.all) up, published \(live.result.totals[.published])")
    }
}
