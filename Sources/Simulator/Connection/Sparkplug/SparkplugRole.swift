import MQTT
import Signals

/// A Sparkplug B edge node's lifecycle around its devices' data (Sparkplug 3.0, 5): after each
/// CONNACK its command topics subscribed to and its births asked for (NBIRTH, then a DBIRTH a
/// device); an NCMD `Node Control/Rebirth` asks for them again; a DCMD's metrics become writes
/// to a device's fields; every NCMD and DCMD is a command the report counts, the ones that do
/// nothing rejected with why; its NDEATH at a clean DISCONNECT. With a primary host, the births
/// wait for the host's STATE to say it is online, and its going offline has the node leave and
/// come back (`PrimaryHostWatch`). The numbers (bdSeq, seq) and the payloads are the
/// connection's to make (`SparkplugSequencer`, the devices' signals).
final class SparkplugRole: ConnectionRole {
    let topic: SparkplugTopic
    /// With a primary host: its STATE topic, and where the node stands with it.
    private(set) var host: PrimaryHostWatch?
    /// The primary host's id, for the node's words.
    private let hostID: String?
    /// The connection's devices by their Sparkplug device id (their id), with their metric names
    /// in alias order and their first alias.
    private let devices: [String: Int]
    private let metricNames: [[String]]
    /// The datatype device `index`'s last DBIRTH announced for a metric: set by the connection,
    /// which holds the devices.
    var birthType: ((Int, SparkplugMetric) -> SparkplugDataType?)?
    private let firstAliases: [UInt64]
    /// Under MQTT 5 the NDEATH at a clean end is the will, which the DISCONNECT asks the broker
    /// to publish.
    private let diesByWill: Bool

    init?(plan: SparkplugNodePlan?, devices: [DevicePlan], protocolVersion: ProtocolVersion) {
        guard let plan else { return nil }
        diesByWill = protocolVersion == .v5
        topic = plan.topic
        self.devices = Dictionary(devices.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        metricNames = devices.map(\.payload.sparkplugMetricNames)
        firstAliases = SparkplugNodePlan.firstAliases(of: devices)
        hostID = plan.primaryHost
        host = plan.primaryHost.map(PrimaryHostWatch.init(host:))
    }

    /// NCMD and DCMD subscribed to before the NBIRTH (3.0, 6.4.3: a host may send them as soon as
    /// it sees the birth), at QoS 1 as the specification asks. With a primary host, its STATE
    /// first of all, at QoS 1, in the same SUBSCRIBE; the births, and the devices' data, wait
    /// for it to say the host is online (a retained STATE comes at once when it is).
    func connected(now: UInt64) -> [RoleAction] {
        guard var host else { return [.subscribe(topic.commandFilters, .atLeastOnce), .sparkplug(.births)] }
        host.connected()
        self.host = host
        return [.subscribe([host.topic] + topic.commandFilters, .atLeastOnce), .sparkplug(.awaitHost)]
    }

    func subscribed(_ suback: Subscriptions.Suback, now: UInt64) -> [RoleAction] {
        guard let refusal = suback.refusal else { return [] }
        if let host, let hostID, suback.refused.contains(where: { $0.filter == host.topic }) {
            return [
                .warnOnce(
                    "sparkplug: \(refusal): the edge node never hears primary host '\(hostID)' say it is online, "
                        + "and waits for it with its births")
            ]
        }
        return [.warnOnce("sparkplug: \(refusal): no NCMD or DCMD reaches the edge node")]
    }

    /// Sparkplug 3.0, "NDEATH": under MQTT 3.1.1 the node publishes its NDEATH before the
    /// DISCONNECT, which discards the will; under MQTT 5 the DISCONNECT MUST carry 0x04,
    /// Disconnect with Will Message (tck-id-payloads-ndeath-will-message-publisher-disconnect-
    /// mqtt50), and the will is then the NDEATH: the host hears one, at the will's QoS 1, not
    /// a copy of its own at QoS 0 beside it.
    func disconnecting(_ farewell: Farewell) -> [RoleAction] {
        [.sparkplug(.death(byWill: diesByWill))]
    }

    func received(_ message: ReceivedMessage, connected: Bool, now: UInt64) -> [RoleAction]? {
        let name = message.topic
        if let host, name == host.topic {
            // One that comes while the connection is going: the next connection's retained one
            // says the same, or newer.
            return connected ? hostSaid(Array(message.payload)) : []
        }
        guard let command = topic.command(in: name) else { return nil }
        guard connected else { return [] }
        // A DCMD may name a metric by its alias alone, without a datatype (3.0: the births give
        // it): an integer is read by the one its device's DBIRTH announced.
        let index = command.device.flatMap { devices[$0] }
        let payload: SparkplugPayload
        do {
            payload = try SparkplugDecoder.decode(Array(message.payload)) { metric in index.flatMap { self.birthType?($0, metric) } }
        } catch {
            return [
                .sparkplug(
                    .rejected(
                        CommandRejection(
                            "a command on '\(message.topic)' is no Sparkplug B payload: \(error)",
                            kind: "a command is no Sparkplug B payload")))
            ]
        }
        guard let device = command.device else {
            // Node Control/Rebirth is the one node command devsim's nodes have.
            guard SparkplugEdgeNode.asksForRebirth(payload) else {
                return [
                    .sparkplug(
                        .rejected(
                            CommandRejection(
                                "an NCMD without 'Node Control/Rebirth' true asks nothing of the node, whose one node command that is",
                                kind: "an NCMD asks for no rebirth")))
                ]
            }
            // Not while the node waits for its primary host, whose online STATE brings them.
            return [.sparkplug(.rebirth(now: host?.isBorn ?? true, arrivedAt: now))]
        }
        guard let index else {
            return [
                .sparkplug(
                    .rejected(
                        CommandRejection(
                            "a DCMD for device '\(device)', which this node does not have",
                            kind: "a DCMD for a device the node does not have")))
            ]
        }
        return [.sparkplug(.write(device: index, writes(payload, of: index), arrivedAt: now))]
    }

    /// The primary host's STATE: the births when it came online, leaving when it went offline;
    /// a payload that is no STATE is said once and ignored.
    private func hostSaid(_ payload: [UInt8]) -> [RoleAction] {
        guard var host, let hostID else { return [] }
        guard let state = PrimaryHostWatch.State(payload) else {
            let text = String(decoding: payload.prefix(80), as: UTF8.self)
            return [
                .warnOnce(
                    "sparkplug: primary host '\(hostID)' published a STATE on '\(host.topic)' that is not JSON with an 'online' "
                        + "boolean and a timestamp in milliseconds (Sparkplug 3.0), '\(text)': ignored",
                    key: "sparkplug: bad STATE")
            ]
        }
        let step = host.take(state)
        self.host = host
        switch step {
        case .births: return [.sparkplug(.births)]
        case .leave: return [.sparkplug(.leave)]
        case .none, .stale: return []
        }
    }

    /// A DCMD's metrics as writes to the device's fields (a metric `location/lat` is field
    /// `location.lat`), by name or by the alias its DBIRTH gave; or why they cannot be.
    private func writes(_ payload: SparkplugPayload, of device: Int) -> Result<[(field: String, value: CommandValue)], CommandRejection> {
        guard !payload.metrics.isEmpty else { return .failure(CommandRejection("a DCMD without metrics writes nothing")) }
        var writes: [(field: String, value: CommandValue)] = []
        for metric in payload.metrics {
            let names = metricNames[device]
            let byAlias = metric.alias.flatMap { alias in
                alias >= firstAliases[device] && alias - firstAliases[device] < UInt64(names.count)
                    ? names[Int(alias - firstAliases[device])] : nil
            }
            guard let name = metric.name ?? byAlias else {
                return .failure(
                    CommandRejection(
                        "a DCMD metric's alias \(metric.alias.map(String.init) ?? "(none)") is none of the device's",
                        kind: "a DCMD names no metric of the device"))
            }
            guard let value = metric.value.flatMap(Self.commandValue) else {
                return .failure(
                    CommandRejection(
                        "a DCMD writes '\(name)' with no value devsim can read (a number, boolean or string; an integer with its datatype)",
                        kind: "a DCMD metric has no value"))
            }
            writes.append((name.replacing("/", with: "."), value))
        }
        return .success(writes)
    }

    private static func commandValue(_ value: SparkplugValue) -> CommandValue? {
        switch value {
        case .int(let number): .number(Double(number))
        case .uint(let number): .number(Double(number))
        case .float(let number): .number(Double(number))
        case .double(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .string(let text): .text(text)
        case .bytes: nil
        }
    }
}
