import Reactor
import Report
import Signals

/// What the connections and devices of one event loop share: the loop, its connections and a
/// payload buffer reused by every tick. Confined to the loop's thread once it runs: other threads
/// hold it in a `LoopBound`, and open it there; before, the fleet that makes it has it alone.
final class LoopContext {
    let loop: EventLoop
    let control: RunControl
    /// Holds each tick's messages between their source and `mosquitto_publish`, which copies
    /// them: reused by every tick of the loop.
    var outgoing = Outgoing()
    /// The interpreter of the loop's scripted devices, made for the first of them.
    private(set) lazy var scripts = ScriptHost(logger: control.logger) { [control] message, key in control.warnOnce(message, key: key) }
    var connections: [DeviceConnection] = []
    /// Connections a reload or a scale took away: gone from the fleet, kept until the loops end
    /// for the references their parts hold to one another (`DeviceConnection.dismantle()`).
    var retired: [DeviceConnection] = []
    /// Connections the fleet started with, over every loop: the count at which every one has
    /// been up once.
    var connectionCount = 0
    /// How late each tick fired after its deadline.
    var lateness = Histogram()
    /// From `mosquitto_publish` to PUBACK/PUBCOMP, for QoS 1/2 messages.
    var latency = Histogram()
    /// From a command's arrival to its answer's publish.
    var commandLatency = Histogram()
    /// From the CONNACK to the SUBACK of a connection's command topics: what listening costs.
    var subscribeLatency = Histogram()
    /// How long each connection the broker accepted took to connect, phase by phase.
    var connectTimings = ConnectTimings()
    /// Groups whose next payload the service wants (the live page's latest payloads); the
    /// count first, so a tick pays one comparison when none is wanted, which is nearly always.
    /// Measured, old and new binaries alternately, QoS 0 at publish: max: 1.35, 1.80 and 1.45
    /// CPU us/msg before, 1.35, 1.30 and 1.40 after: within the noise.
    var samplesWanted = 0
    var sampleWanted: [Bool]
    /// Each group's latest sampled payload on this loop.
    var samples: [String?]

    init(loop: EventLoop, control: RunControl, groups: Int) {
        self.loop = loop
        sampleWanted = Array(repeating: false, count: max(1, groups))
        samples = Array(repeating: nil, count: max(1, groups))
        self.control = control
    }

    /// Makes room for the groups a reload added: `count` in all.
    func growGroups(to count: Int) {
        guard count > samples.count else { return }
        sampleWanted += Array(repeating: false, count: count - samples.count)
        samples += Array(repeating: nil, count: count - samples.count)
    }

    /// One connection a change adds: it opens at `offset` seconds from now (its place in the
    /// group's ramp-up), or once the connection it `replaces` is gone; a connection of a paused
    /// group starts paused, and connects at the resume.
    struct Joining {
        let parts: DeviceConnection.Parts
        let replaces: String?
        let offset: Double
        let paused: Bool
    }

    /// This loop's part of a change to the fleet (see `FleetChange`): the connections with the
    /// `retiring` keys stop ticking and leave cleanly, and the `opening` ones join.
    func change(retiring: Set<String>, opening: [Joining], groups: Int) {
        growGroups(to: groups)
        var leaving: [String: DeviceConnection] = [:]
        if !retiring.isEmpty {
            connections.removeAll { connection in
                guard retiring.contains(connection.plan.key) else { return false }
                leaving[connection.plan.key] = connection
                return true
            }
        }
        var successors: [String: DeviceConnection] = [:]
        let now = MonotonicClock.now()
        for joining in opening {
            let connection = DeviceConnection(joining.parts, context: self)
            connections.append(connection)
            connection.join()
            if joining.paused {
                connection.pause()
            } else if let replaces = joining.replaces, leaving[replaces] != nil {
                successors[replaces] = connection
            } else {
                connection.open(at: now &+ MonotonicClock.nanoseconds(joining.offset))
            }
        }
        retired += leaving.values
        for (key, connection) in leaving {
            let successor = successors[key]
            connection.whenFinished = { [unowned self, unowned connection] in
                successor?.carryOn(from: connection)
                successor?.open(at: MonotonicClock.now())
                // Later, outside the client's own callback that finished it.
                LoopBound((context: self, connection: connection), on: self.loop).execute { $0.context.letGo($0.connection) }
            }
            connection.retire()
        }
    }

    /// A retired connection that has finished goes away, and its descriptors with it.
    private func letGo(_ connection: DeviceConnection) {
        connection.client.leaveLoop()
        connection.dismantle()
        retired.removeAll { $0 === connection }
    }

    /// Asks each group's next tick on this loop for its payload.
    func wantSamples() {
        for index in sampleWanted.indices where !sampleWanted[index] {
            sampleWanted[index] = true
            samplesWanted += 1
        }
    }

    /// Whether the service wants the payload of group `group`'s next tick (the live page's
    /// latest payloads): one comparison a tick, when none is wanted, which is nearly always.
    @inline(__always)
    func wantsSample(group: Int) -> Bool {
        samplesWanted > 0 && sampleWanted[group]
    }

    /// Keeps `text` as group `group`'s latest payload.
    func keepSample(group: Int, _ text: String) {
        sampleWanted[group] = false
        samplesWanted -= 1
        samples[group] = text
    }
}
