import Dispatch
import Reactor

/// `devsim record`: one subscriber connection on an event loop of its own that writes every
/// message it receives to the recording, a line each, as it arrives. Time 0 is the moment the
/// broker granted the subscriptions (their SUBACK), on the monotonic clock; a message's time is
/// the seconds from then to its arrival. The retained messages the broker sends at the
/// subscription come first, at about 0, marked retained.
///
/// The connection is made again after a loss, with backoff; the recording then has a gap,
/// counted. It ends at `duration` (counted from the grant), after `messages`, at a stop request
/// (a signal), or when the broker will not have it (refused, never reached within the connect
/// timeout). Everything but `run` and `requestStop` happens on the loop's thread.
package final class Recorder: Sendable {
    /// Its loop's: made before the loop starts, read once it has stopped.
    private let keeper: LoopBound<RecordKeeper>
    private let done = DispatchSemaphore(value: 0)

    /// Makes the loop and the client; the file comes with the first grant.
    package init(settings: RecordSettings, logger: Logger) throws {
        let loop = try EventLoop(name: "devsim-record", logger: logger)
        keeper = LoopBound(try RecordKeeper(settings: settings, logger: logger, loop: loop, done: done), on: loop)
    }

    /// Records until the end, and returns what was recorded. Blocks the calling thread.
    package func run() throws -> RecordResult {
        try keeper.loop.start()
        keeper.execute { $0.begin() }
        done.wait()
        keeper.loop.stop()
        return keeper.value.result
    }

    /// Ends the recording soon (a signal): what was recorded is kept. Any thread.
    package func requestStop() {
        try? keeper.submit { $0.finish(.stopped) }
    }
}
