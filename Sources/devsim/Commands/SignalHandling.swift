import Dispatch
import Glibc
import Synchronization

/// SIGINT and SIGTERM: the first asks for a graceful stop, the second exits at once. SIGHUP
/// asks for a reload of the scenario files (`systemctl reload`), one at a time, in the order
/// they came.
enum SignalHandling {
    /// Keeps the dispatch sources alive as long as the caller holds the result.
    static func install(
        onFirst stop: @escaping @Sendable () -> Void, onHangUp reload: @escaping @Sendable () -> Void
    ) -> [DispatchSourceSignal] {
        let received = Atomic<Int>(0)
        var sources = [SIGINT, SIGTERM].map { number in
            source(number, queue: .global()) {
                if received.add(1, ordering: .relaxed).newValue == 1 {
                    stop()
                } else {
                    _exit(128 + number)
                }
            }
        }
        // Serial: a second SIGHUP waits for the reload the first began.
        sources.append(source(SIGHUP, queue: DispatchQueue(label: "devsim-reload"), reload))
        return sources
    }

    private static func source(_ number: Int32, queue: DispatchQueue, _ handler: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}
