import Reactor
import Signals

/// What the connections and devices of one event loop share: the loop, its counters and a
/// payload buffer reused by every tick. Confined to the loop's thread.
final class LoopContext: @unchecked Sendable {
    let loop: EventLoop
    /// One set per device group, so the report can give each group's figures; the loop's own
    /// figures are their sum.
    let counters: [Counters]
    let control: RunControl
    /// Holds each payload between encoding and `mosquitto_publish`, which copies it.
    var payload = PayloadBuffer(capacity: 4096)
    var connections: [DeviceConnection] = []
    /// Connections in the whole fleet, over every loop.
    var connectionCount = 0
    /// How late each tick fired after its deadline.
    var lateness = Histogram()
    /// From `mosquitto_publish` to PUBACK/PUBCOMP, for QoS 1/2 messages.
    var latency = Histogram()

    init(loop: EventLoop, control: RunControl, groups: Int) {
        self.loop = loop
        counters = (0..<max(1, groups)).map { _ in Counters() }
        self.control = control
    }
}
