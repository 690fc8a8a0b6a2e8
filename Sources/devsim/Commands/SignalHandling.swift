import Dispatch
import Glibc
import Synchronization

/// SIGINT, SIGTERM and SIGHUP: the first asks for a graceful stop, the second exits at once.
/// SIGHUP, which killed the process without a report or a drain, stops it as SIGTERM does (a
/// closed terminal, `systemctl reload` before devsim can reload).
enum SignalHandling {
    /// Keeps the dispatch sources alive as long as the caller holds the result.
    static func install(onFirst stop: @escaping @Sendable () -> Void) -> [DispatchSourceSignal] {
        let received = Atomic<Int>(0)
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if received.add(1, ordering: .relaxed).newValue == 1 {
                    stop()
                } else {
                    _exit(128 + number)
                }
            }
            source.resume()
            return source
        }
    }
}
