import Glibc
import Reactor

/// The end of a set of subscriber connections on loops of their own (the verifier's, a
/// subscriber group's): each connection stopped on its loop, at most a second for them to say
/// they have finished (`finished`), then the loops stopped, so that their figures can be read.
func stopSubscribing(connections: [(loop: EventLoop, stop: @Sendable () -> Void)], finished: () -> Int, loops: [EventLoop]) {
    for connection in connections {
        connection.loop.execute(connection.stop)
    }
    let deadline = MonotonicClock.now() &+ 1_000_000_000
    while finished() < connections.count, MonotonicClock.now() < deadline {
        usleep(5_000)
    }
    for loop in loops { loop.stop() }
}
