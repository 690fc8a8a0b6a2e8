import Mosquitto

/// What the connections and devices of one event loop share: the loop, its counters and a
/// payload buffer reused by every tick. Confined to the loop's thread.
final class LoopContext: @unchecked Sendable {
    let loop: EventLoop
    let counters = Counters()
    let control: RunControl
    /// Holds each payload between encoding and `mosquitto_publish`, which copies it.
    var payload: [UInt8] = []
    var connections: [Connection] = []
    /// How late each tick fired after its deadline.
    var lateness = Histogram()
    /// From `mosquitto_publish` to PUBACK/PUBCOMP, for QoS 1/2 messages.
    var latency = Histogram()

    init(loop: EventLoop, control: RunControl) {
        self.loop = loop
        self.control = control
        payload.reserveCapacity(4096)
    }
}
