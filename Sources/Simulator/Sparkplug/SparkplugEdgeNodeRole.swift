import MQTT
import Mosquitto
import Reactor
import Report
import Signals

/// A Sparkplug B edge node (Sparkplug 3.0, 5), the role of its connection: the NDEATH with the
/// next bdSeq as the will of every CONNECT; after each CONNACK its command topics subscribed to
/// and its births published (NBIRTH, then a DBIRTH a device in), its devices' data held until
/// then; an NCMD `Node Control/Rebirth` asks for them again; a DCMD's metrics become writes to a
/// device's fields, answered with its DDATA; every NCMD and DCMD is a command the report counts,
/// the ones that do nothing rejected with why; its NDEATH at a clean DISCONNECT; `devices`
/// stages bring devices in (DBIRTH) and take them out (DDEATH) while the node stays. With a
/// primary host, the births wait for the host's STATE to say it is online, and its going offline
/// has the node leave and come back (`PrimaryHostWatch`). Every message of the node takes its
/// seq as it goes out (`SparkplugSequencer`, the connection's stamp).
final class SparkplugEdgeNodeRole: ConnectionRole {
    let name = "sparkplug"
    let sequencer: SparkplugSequencer
    var stamp: (any MessageStamp)? { sequencer }
    var topic: SparkplugTopic { sequencer.topic }
    /// With a primary host: its STATE topic, and where the node stands with it.
    private(set) var host: PrimaryHostWatch?
    /// The primary host's id, for the node's words.
    let hostID: String?
    /// The node's devices: their plans, their sources (which write their births and data), and
    /// by their Sparkplug device id (their id), their index; their metric names in alias order
    /// and their first alias.
    let plans: [DevicePlan]
    let sources: [SparkplugDataSource]
    let indexByID: [String: Int]
    let metricNames: [[String]]
    let firstAliases: [UInt64]
    /// Which of the node's devices are born, as `devices` stages bring them in and out.
    var roster: SparkplugDeviceRoster
    /// The devices' data waits for the births: from the CONNACK, or from the primary host's going
    /// offline, until the births.
    var holdsData = false
    /// Seconds to wait before connecting again after leaving for the host's going offline.
    private let rejoinDelay: Double
    /// Under MQTT 5 the NDEATH at a clean end is the will, which the DISCONNECT asks the broker
    /// to publish.
    private let diesByWill: Bool
    /// When the node connects again after leaving for its host's going offline, and when its
    /// devices' stages next bring one in or take one out.
    private var rejoinTimer: RoleTimer?
    var presenceTimer: RoleTimer?
    /// The DCMD answer and the births are written here.
    var scratch = Outgoing()

    init?(plan: ConnectionPlan, sources: [any MessageSource]) {
        guard let node = plan.sparkplug else { return nil }
        sequencer = SparkplugSequencer(topic: node.topic)
        plans = plan.devices
        self.sources = sources.map { $0 as! SparkplugDataSource }
        indexByID = Dictionary(plan.devices.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        metricNames = plan.devices.map(\.payload.sparkplugMetricNames)
        firstAliases = SparkplugNodePlan.firstAliases(of: plan.devices)
        hostID = node.primaryHost
        host = node.primaryHost.map(PrimaryHostWatch.init(host:))
        roster = SparkplugDeviceRoster(devices: plan.devices.count)
        rejoinDelay = plan.reconnect.initial / .seconds(1)
        diesByWill = plan.options.protocolVersion == .v5
    }

    /// Goes on from the node of `previous`, the connection of the same node (its client id) that a
    /// reload replaced: its bdSeq counts on.
    func carryOn(from previous: any ConnectionRole) {
        guard let previous = previous as? SparkplugEdgeNodeRole else { return }
        sequencer.carryOn(from: previous.sequencer)
    }

    func willConnect(_ context: any RoleContext) throws(ClientSetupError) {
        try context.setWill(sequencer.willForNextConnection())
    }

    func reachedBroker(_ context: any RoleContext) {
        sequencer.connectReachedBroker()
    }

    /// NCMD and DCMD subscribed to before the NBIRTH (3.0, 6.4.3: a host may send them as soon as
    /// it sees the birth), at QoS 1 as the specification asks. With a primary host, its STATE
    /// first of all, at QoS 1, in the same SUBSCRIBE; the births, and the devices' data, wait
    /// for it to say the host is online (a retained STATE comes at once when it is).
    func connected(_ context: any RoleContext) {
        guard var host else {
            context.subscribe(topic.commandFilters, qos: .atLeastOnce, for: self)
            publishBirths(context)
            return
        }
        host.connected()
        self.host = host
        context.subscribe([host.topic] + topic.commandFilters, qos: .atLeastOnce, for: self)
        if let hostID { context.logEvent("sparkplug: waiting for primary host '\(hostID)' to be online") }
        hold(true, context)
        nodeDied(context)
    }

    func subscribed(_ suback: Subscriptions.Suback, _ context: any RoleContext) {
        guard let refusal = suback.refusal else { return }
        if let host, let hostID, suback.refused.contains(where: { $0.filter == host.topic }) {
            return context.warnOnce(
                "sparkplug: \(refusal): the edge node never hears primary host '\(hostID)' say it is online, "
                    + "and waits for it with its births")
        }
        context.warnOnce("sparkplug: \(refusal): no NCMD or DCMD reaches the edge node")
    }

    /// Sparkplug 3.0, "NDEATH": under MQTT 3.1.1 the node publishes its NDEATH before the
    /// DISCONNECT, which discards the will, at QoS 0, so that the DISCONNECT right behind it
    /// waits for no acknowledgement; under MQTT 5 the DISCONNECT MUST carry 0x04, Disconnect with
    /// Will Message (tck-id-payloads-ndeath-will-message-publisher-disconnect-mqtt50), and the
    /// will is then the NDEATH: the host hears one, at the will's QoS 1, not a copy of its own.
    func disconnecting(_ farewell: Farewell, _ context: any RoleContext) {
        if !diesByWill {
            context.publish(
                OutboundMessage(topic: topic.topic(.nodeDeath), qos: .atMostOnce, retain: false, what: name), payload: sequencer.death())
        }
        nodeDied(context)
    }

    func disconnectReason(_ farewell: Farewell) -> ReasonCode? {
        diesByWill ? .disconnectWithWill : nil
    }

    /// Down by a fault, not waiting for a primary host: the ticks follow the offline policy until
    /// the next CONNACK, whose node waits for the host again.
    func lost(_ context: any RoleContext) {
        hold(false, context)
        nodeDied(context)
    }

    func finished(_ context: any RoleContext) {
        rejoinTimer?.cancel()
        presenceTimer?.cancel()
    }

    func received(_ message: ReceivedMessage, _ context: any RoleContext) -> Bool {
        let name = message.topic
        if let host, name == host.topic {
            // One that comes while the connection is going: the next connection's retained one
            // says the same, or newer.
            if context.isConnected { hostSaid(Array(message.payload), context) }
            return true
        }
        guard let command = topic.command(in: name) else { return false }
        guard context.isConnected else { return true }
        // A DCMD may name a metric by its alias alone, without a datatype (3.0: the births give
        // it): an integer is read by the one its device's DBIRTH announced.
        let index = command.device.flatMap { indexByID[$0] }
        let payload: SparkplugPayload
        do {
            payload = try SparkplugDecoder.decode(Array(message.payload)) { metric in
                index.flatMap { self.sources[$0].birthType(of: metric) }
            }
        } catch {
            reject(
                CommandRejection(
                    "a command on '\(message.topic)' is no Sparkplug B payload: \(error)", kind: "a command is no Sparkplug B payload"),
                context)
            return true
        }
        guard let device = command.device else {
            // Node Control/Rebirth is the one node command devsim's nodes have.
            guard SparkplugEdgeNode.asksForRebirth(payload) else {
                reject(
                    CommandRejection(
                        "an NCMD without 'Node Control/Rebirth' true asks nothing of the node, whose one node command that is",
                        kind: "an NCMD asks for no rebirth"), context)
                return true
            }
            rebirth(context)
            return true
        }
        guard let index else {
            reject(
                CommandRejection(
                    "a DCMD for device '\(device)', which this node does not have", kind: "a DCMD for a device the node does not have"),
                context)
            return true
        }
        write(writes(payload, of: index), to: index, context)
        return true
    }

    /// An NCMD or DCMD that does nothing: a command received and rejected, and why, said once.
    private func reject(_ rejection: CommandRejection, _ context: any RoleContext) {
        context.counters.commandReceived()
        context.counters.commandDone(applied: false)
        context.warnOnce("sparkplug: \(rejection.reason)", key: "sparkplug rejected: \(rejection.kind)")
    }

    /// An NCMD `Node Control/Rebirth`: a command as a DCMD is, counted once as received and as
    /// applied, and as answered when the NBIRTH went out; said in a line. Not while the node waits
    /// for its primary host, whose online STATE brings the births.
    private func rebirth(_ context: any RoleContext) {
        let arrivedAt = context.now
        context.counters.commandReceived()
        context.counters.commandDone(applied: true)
        let now = host?.isBorn ?? true
        let waited = hostID.map { "'\($0)'" } ?? "its primary host"
        context.logCommand(
            "sparkplug: an NCMD asked for a rebirth: " + (now ? "births published again" : "the births wait for \(waited) to be online"))
        guard now, publishBirths(context) else { return }
        context.counters.commandAnswered()
        context.recordCommandLatency(context.now &- arrivedAt)
    }

    /// The primary host's STATE: the births when it came online, leaving when it went offline;
    /// a payload that is no STATE is said once and ignored.
    private func hostSaid(_ payload: [UInt8], _ context: any RoleContext) {
        guard var host, let hostID else { return }
        guard let state = PrimaryHostWatch.State(payload) else {
            let text = String(decoding: payload.prefix(80), as: UTF8.self)
            return context.warnOnce(
                "sparkplug: primary host '\(hostID)' published a STATE on '\(host.topic)' that is not JSON with an 'online' "
                    + "boolean and a timestamp in milliseconds (Sparkplug 3.0), '\(text)': ignored",
                key: "sparkplug: bad STATE")
        }
        let step = host.take(state)
        self.host = host
        switch step {
        case .births: publishBirths(context)
        case .leave: leave(context)
        case .none, .stale: break
        }
    }

    /// The primary host went offline: the NDEATH, a clean DISCONNECT and a new connection after
    /// the reconnect delay, as after a loss, whose births wait for the host again (3.0, "Edge
    /// Node Session Termination"). The NDEATH is the node's last word before the DISCONNECT
    /// (`disconnecting`).
    private func leave(_ context: any RoleContext) {
        // From the moment the host is gone, not only once the node is down again.
        hold(true, context)
        guard context.changeStanding({ $0.reconnect(.primaryHostOffline) }) != .stay else { return }
        context.logEvent("sparkplug: the primary host went offline: NDEATH, and connecting again in \(formatSeconds(rejoinDelay))")
        if rejoinTimer == nil { rejoinTimer = context.makeTimer(for: self) }
        rejoinTimer?.schedule(at: context.now &+ MonotonicClock.nanoseconds(rejoinDelay))
    }

    /// The node's births and deaths as JSON, each metric of a birth with its alias and datatype.
    func describe(_ payload: [UInt8], on topic: String) -> String? {
        guard topic.hasPrefix("\(SparkplugTopic.namespace)/\(self.topic.groupID)/"),
            let decoded = try? SparkplugDecoder.decode(payload, birthType: { _ in nil })
        else { return nil }
        return decoded.text()
    }

    func timerFired(_ timer: RoleTimer, now: UInt64, _ context: any RoleContext) {
        if timer === rejoinTimer {
            context.changeStanding { $0.reconnectDue() }
        } else {
            devicesTurned(now: now, context)
        }
    }
}
