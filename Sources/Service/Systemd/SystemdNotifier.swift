import CSystemd
import Glibc
import Synchronization

/// What systemd's `Type=notify` asks of a daemon, through libsystemd's `sd_notify`: `READY=1`
/// once the share of connections up first reaches the ready threshold, `STATUS=` with the status
/// line, `WATCHDOG=1` while every event loop answers, when the unit sets `WatchdogSec`, and
/// `RELOADING=1` … `READY=1` around a reload. Does nothing outside systemd (no `NOTIFY_SOCKET`).
/// Driven once a second by `update`.
package final class SystemdNotifier: Sendable {
    private let isReady = Atomic<Bool>(false)
    private let watchdog: Bool
    /// Whether systemd listens at all: `NOTIFY_SOCKET` is set.
    package let isActive: Bool

    package init() {
        isActive = getenv("NOTIFY_SOCKET") != nil
        var interval: UInt64 = 0
        // > 0 when WATCHDOG_USEC is set (and WATCHDOG_PID, if set, is this process).
        watchdog = isActive && sd_watchdog_enabled(0, &interval) > 0
    }

    /// The fleet as of now: `ready` once the threshold is met, `healthy` while every loop
    /// answers, `status` the line `systemctl status` shows.
    package func update(ready: Bool, healthy: Bool, status: String) {
        guard isActive else { return }
        var message = "STATUS=" + status.replacingNewlines
        if ready, !isReady.exchange(true, ordering: .relaxed) {
            message = "READY=1\n" + message
        }
        if watchdog, healthy { message += "\nWATCHDOG=1" }
        _ = sd_notify(0, message)
    }

    /// A reload begins: `RELOADING=1` with the monotonic time systemd asks for beside it.
    package func reloading() {
        guard isActive else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        _ = sd_notify(0, "RELOADING=1\nMONOTONIC_USEC=\(Int(now.tv_sec) * 1_000_000 + Int(now.tv_nsec) / 1000)")
    }

    /// The reload is done, whatever it did; `READY=1` only once the service was ready.
    package func reloaded() {
        guard isActive else { return }
        _ = sd_notify(0, isReady.load(ordering: .relaxed) ? "READY=1" : "STATUS=reloaded")
    }

    /// The run is ending.
    package func stopping() {
        guard isActive else { return }
        _ = sd_notify(0, "STOPPING=1")
    }
}

extension String {
    /// One line: sd_notify takes newline-separated assignments.
    fileprivate var replacingNewlines: String { String(map { $0 == "\n" ? " " : $0 }) }
}
