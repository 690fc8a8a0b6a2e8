import MQTT
import Signals

/// One job of a device connection beside its telemetry (availability, Home Assistant discovery,
/// commands): it hears the connection's events and answers with actions the connection carries
/// out, so that it is tested without a broker. Each event has a default that does nothing.
/// Confined to the connection's loop.
protocol ConnectionRole: AnyObject {
    /// After every CONNACK, before any telemetry.
    func connected(now: UInt64) -> [RoleAction]
    /// A clean DISCONNECT is about to go out (its will is suppressed): the role's last words.
    func disconnecting(_ farewell: Farewell) -> [RoleAction]
    /// The connection leaves the fleet for good (`retire`), while its driver is as `driver` says.
    func retiring(_ driver: DriverStanding) -> [RoleAction]
    /// A message the broker delivered; nil when it is not this role's.
    func received(_ message: ReceivedMessage, connected: Bool, now: UInt64) -> [RoleAction]?
    /// A SUBACK for one of the SUBSCRIBEs its `.subscribe` asked for.
    func subscribed(_ suback: Subscriptions.Suback, now: UInt64) -> [RoleAction]
}

extension ConnectionRole {
    func connected(now: UInt64) -> [RoleAction] { [] }
    func disconnecting(_ farewell: Farewell) -> [RoleAction] { [] }
    func retiring(_ driver: DriverStanding) -> [RoleAction] { [] }
    func received(_ message: ReceivedMessage, connected: Bool, now: UInt64) -> [RoleAction]? { nil }
    func subscribed(_ suback: Subscriptions.Suback, now: UInt64) -> [RoleAction] { [] }
}

/// Why a clean DISCONNECT goes out.
enum Farewell: Equatable {
    /// A pause, the lifecycle, the stages, or the run's end: the devices will be back.
    case goingOffline
    /// The devices leave for good: a reload or a scale retires them, or the run ends under
    /// `--discovery-cleanup`. Their Home Assistant entities are deleted.
    case leaving
}

/// The driver's state as a retiring role needs it.
enum DriverStanding: Equatable {
    /// Up: the DISCONNECT's last words are still to come.
    case connected
    /// Its DISCONNECT waits for acknowledgements: the socket is open still, the last words said.
    case pausing
    /// No socket.
    case disconnected
}

/// What a role asks of its connection.
enum RoleAction {
    /// A message beside the telemetry.
    case publish(AsideMessage)
    /// Device `device`'s last payload again (Home Assistant asks for the states when it starts),
    /// counted as a state message; nothing when there is none yet.
    case republishLastState(device: Int)
    /// Subscribe to `filters` (after every CONNACK: a clean session forgets them); the SUBACKs
    /// come back to the role.
    case subscribe([String], QoS)
    /// A command for device `device`, to be checked, carried out and answered.
    case carryOut(Command)
    /// Log once for the whole run, whichever connection says it.
    case warnOnce(String, key: String? = nil)
    /// The time from the command topics' SUBSCRIBEs to their last SUBACK.
    case subscribeLatency(UInt64)
    /// What a Sparkplug edge node says, in its payloads and with its numbers.
    case sparkplug(Sparkplug)

    enum Sparkplug {
        /// The NBIRTH, then every device's DBIRTH; the devices' data goes out from then on.
        case births
        /// The devices' data waits for the births: the node waits for its primary host to say it
        /// is online.
        case awaitHost
        /// The primary host went offline: the NDEATH, a clean DISCONNECT and a new connection at
        /// once, whose births wait for the host again (3.0, "Edge Node Session Termination").
        case leave
        /// The NDEATH, before a clean DISCONNECT: published by the node, or `byWill`, the node's
        /// will, which the DISCONNECT then asks the broker to publish (MQTT 5's 0x04).
        case death(byWill: Bool)
        /// A DCMD's writes to device `device`, or why it has none, to be carried out and answered
        /// with a DDATA.
        case write(device: Int, Result<[(field: String, value: CommandValue)], CommandRejection>, arrivedAt: UInt64)
        /// An NCMD `Node Control/Rebirth`, a command answered by the births: at once (`now`),
        /// or, while the node waits for its primary host, by those its online STATE brings.
        case rebirth(now: Bool, arrivedAt: UInt64)
        /// An NCMD or DCMD that does nothing, and why: a command rejected.
        case rejected(CommandRejection)
    }

    struct Command {
        let device: Int
        let topic: String
        let payload: [UInt8]
        let arrivedAt: UInt64
        /// An MQTT 5 request's response topic and correlation data.
        let replyTo: (topic: String, correlation: [UInt8]?)?
    }
}

/// A message beside the telemetry, and what it is for ("availability", "discovery",
/// "commands"), in the words of a refusal.
struct AsideMessage: Equatable {
    let topic: String
    let payload: [UInt8]
    var qos: QoS = .atLeastOnce
    let retain: Bool
    let what: String
}
