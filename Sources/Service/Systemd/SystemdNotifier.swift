import CSystemd
import Glibc

/// What systemd's `Type=notify` asks of a daemon, through libsystemd's `sd_notify`: `READY=1`
/// once the share of connections up first reaches the ready threshold, `STATUS=` with the status
/// line, and `WATCHDOG=1` while every event loop answers, when the unit sets `WatchdogSec`. Does
/// nothing outside systemd (no `NOTIFY_SOCKET`). Driven once a second by `update`.
package final class SystemdNotifier: @unchecked Sendable {
    private var isReady = false
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
        if ready, !isReady {
            isReady = true
            message = "READY=1\n" + message
        }
        if watchdog, healthy { message += "\nWATCHDOG=1" }
        _ = sd_notify(0, message)
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
