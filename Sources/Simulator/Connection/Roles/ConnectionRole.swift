import MQTT
import Mosquitto

/// One job of a device connection beside its telemetry (availability, Home Assistant discovery,
/// commands, a Sparkplug edge node, a lifecycle, stages, token renewal): it hears the
/// connection's events and acts through the context the connection gives it (`RoleContext`),
/// as swift-nio's handlers act through theirs, so that a new role changes nothing else and a
/// dry run's connection runs the same roles. Each event has a default that does nothing.
/// Confined to the connection's loop.
protocol ConnectionRole: AnyObject {
    /// Its words' prefix: what a subscription problem or a warning is for.
    var name: String { get }
    /// What every message of the connection carries, written as it goes out (a Sparkplug edge
    /// node's seq); `nil` for none. Asked once, when the connection is made.
    var stamp: (any MessageStamp)? { get }

    /// Before every CONNECT: what the attempt carries (a will, a password).
    func willConnect(_ context: any RoleContext) throws(ClientSetupError)
    /// The attempt's CONNECT reached the broker: accepted, refused or left unanswered.
    func reachedBroker(_ context: any RoleContext)
    /// After every CONNACK, before any telemetry.
    func connected(_ context: any RoleContext)
    /// A clean DISCONNECT is about to go out (its will is suppressed): the role's last words.
    func disconnecting(_ farewell: Farewell, _ context: any RoleContext)
    /// The reason code the clean DISCONNECT about to go out carries, where the role asks for one
    /// (a Sparkplug node under MQTT 5: 0x04, whose will is then its NDEATH); `nil` for none.
    func disconnectReason(_ farewell: Farewell) -> ReasonCode?
    /// The connection was lost: no clean DISCONNECT, the will is out.
    func lost(_ context: any RoleContext)
    /// A pause by request (the seed's phone in the background): it holds until the resume.
    func paused(_ context: any RoleContext)
    /// The connection leaves the fleet for good (`retire`), while its driver is as `driver` says.
    func retiring(_ driver: DriverStanding, _ context: any RoleContext)
    /// Nothing more will happen on the connection: its timers stop.
    func finished(_ context: any RoleContext)
    /// A message the broker delivered; false when it is not this role's.
    func received(_ message: ReceivedMessage, _ context: any RoleContext) -> Bool
    /// A SUBACK for one of the SUBSCRIBEs it asked for (`RoleContext.subscribe`).
    func subscribed(_ suback: Subscriptions.Suback, _ context: any RoleContext)
    /// Whether the connection is in the fleet at `now` as far as this role goes (its stages);
    /// asked when it opens and when a pause before that ends.
    func keepsIn(at now: UInt64, _ context: any RoleContext) -> Bool
    /// One of its timers (`RoleContext.makeTimer`) is due.
    func timerFired(_ timer: RoleTimer, now: UInt64, _ context: any RoleContext)
    /// One of its messages (on `topic`) as a person reads it, where its payload is not text (a
    /// Sparkplug birth): the dry run's line. `nil` for a topic not its own.
    func describe(_ payload: [UInt8], on topic: String) -> String?
    /// Goes on from `previous`, the same role of the connection with the same client id that a
    /// reload replaced by this one.
    func carryOn(from previous: any ConnectionRole)
}

extension ConnectionRole {
    var stamp: (any MessageStamp)? { nil }
    func willConnect(_ context: any RoleContext) throws(ClientSetupError) {}
    func reachedBroker(_ context: any RoleContext) {}
    func connected(_ context: any RoleContext) {}
    func disconnecting(_ farewell: Farewell, _ context: any RoleContext) {}
    func disconnectReason(_ farewell: Farewell) -> ReasonCode? { nil }
    func lost(_ context: any RoleContext) {}
    func paused(_ context: any RoleContext) {}
    func retiring(_ driver: DriverStanding, _ context: any RoleContext) {}
    func finished(_ context: any RoleContext) {}
    func received(_ message: ReceivedMessage, _ context: any RoleContext) -> Bool { false }
    func subscribed(_ suback: Subscriptions.Suback, _ context: any RoleContext) {}
    func keepsIn(at now: UInt64, _ context: any RoleContext) -> Bool { true }
    func timerFired(_ timer: RoleTimer, now: UInt64, _ context: any RoleContext) {}
    func carryOn(from previous: any ConnectionRole) {}
    func describe(_ payload: [UInt8], on topic: String) -> String? { nil }
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

/// What every message of a connection carries beside its payload, written as libmosquitto takes
/// the message, so that it runs on in the order the broker receives them whichever path made
/// them (a Sparkplug edge node's seq: `SparkplugSequencer`).
protocol MessageStamp: AnyObject {
    /// `payload` stamped, handed to `publish`; `beside`: a message beside the ticks (a birth, a
    /// command's answer). The stamp is taken when libmosquitto took the message.
    func publish(
        _ payload: UnsafeRawBufferPointer, beside: Bool, _ publish: (UnsafeRawBufferPointer) -> (messageID: Int32, error: MosquittoError?)
    ) -> (messageID: Int32, error: MosquittoError?)
}
