import Dispatch
import Glibc
import Synchronization

/// The signals a run takes, as a service of its group: the first of the graceful ones (SIGINT,
/// SIGTERM) asks the work to end gracefully, the next exits at once (128 + the signal); a
/// reload signal (SIGHUP: `systemctl reload`) asks for a reload, one at a time, in the order
/// they came, which a work that cannot be reloaded ignores. Once stopped, the signals stay
/// ignored: the run is concluding.
public final class SignalService: RunService {
    private let graceful: [Int32]
    private let reloading: [Int32]
    /// The graceful signals, counted together: the first stops gracefully, the next exits.
    private let received = Atomic<Int>(0)
    private let sources = Mutex<[DispatchSourceSignal]>([])

    public init(gracefulShutdown graceful: [Int32] = [SIGINT, SIGTERM], reload: [Int32] = [SIGHUP]) {
        self.graceful = graceful
        reloading = reload
    }

    public func start(in group: ServiceGroup) {
        let (graceful, reloading) = (self.graceful, self.reloading)
        sources.withLock { sources in
            sources = graceful.map { number in
                Self.source(number, queue: .global()) { [self] in
                    if received.add(1, ordering: .relaxed).newValue == 1 {
                        group.requestStop()
                    } else {
                        _exit(128 + number)
                    }
                }
            }
            // Serial: a second SIGHUP waits for the reload the first began.
            let queue = DispatchQueue(label: "devsim-reload")
            sources += reloading.map { Self.source($0, queue: queue) { group.reload() } }
        }
    }

    public func stop() {
        sources.withLock { sources in
            for source in sources { source.cancel() }
            sources = []
        }
    }

    private static func source(_ number: Int32, queue: DispatchQueue, _ handler: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}
