import MQTT
import Mosquitto
import Reactor
import Scenario
import Signals

@testable import Simulator

/// A connection for a role under test, as swift-nio's `EmbeddedChannel` is a channel for a
/// handler: it takes what the role does through its context and keeps it, in order, for the test
/// to read; its clock, its connection and its devices' answers are the test's to set. No broker,
/// no loop: a role's timers are not made.
final class RoleRecorder: RoleContext {
    /// What the role did, in order.
    enum Effect: Equatable {
        case publish(topic: String, payload: [UInt8], qos: QoS, retain: Bool, what: String, stamped: Bool)
        case subscribe([String], QoS)
        case warn(String, key: String?)
        case hold(Bool)
        case holdDevice(Int, Bool)
        case take(device: Int, fields: [String], values: [CommandValue])
        case state(device: Int, what: String)
        case standing(ConnectionStanding)
        case subscribeLatency(UInt64)
        case commandLatency(UInt64)
        case will(Will)
        case log(String)
    }

    private(set) var effects: [Effect] = []
    var now: UInt64 = 5
    var wallClock = 1_800_000_000.0
    var isConnected = true
    var standing = ConnectionStanding.active
    var connackEndsPlannedReconnect: ConnectionStanding.PlannedReconnect?
    var deviceCount = 2
    let counters = Counters()
    /// What `take` throws, where the test wants a device to refuse a command.
    var refusal: CommandRejection?
    /// The payload `lastStateAsReply` gives.
    var stateReply: [UInt8] = Array("{}".utf8)

    /// The effects since the last call, and forgets them.
    func take() -> [Effect] {
        defer { effects.removeAll() }
        return effects
    }

    /// What the role published, of the effects since the last call.
    func published() -> [(topic: String, payload: [UInt8], qos: QoS, retain: Bool, what: String)] {
        take().compactMap {
            if case .publish(let topic, let payload, let qos, let retain, let what, _) = $0 {
                (topic, payload, qos, retain, what)
            } else {
                nil
            }
        }
    }

    func secondsIntoRun(_ time: UInt64) -> Double { Double(time) / 1e9 }
    func instant(secondsIntoRun seconds: Double) -> UInt64 { MonotonicClock.nanoseconds(seconds) }
    func isTicking(at time: UInt64) -> Bool { true }
    func stagesTurned(in isIn: Bool) { _ = standing.stagesTurned(in: isIn, connected: isConnected) }

    func changeStanding(_ change: (inout ConnectionStanding) -> ConnectionStanding.Move) -> ConnectionStanding.Move {
        let move = change(&standing)
        effects.append(.standing(standing))
        return move
    }

    func publish(_ message: OutboundMessage, payload: UnsafeRawBufferPointer) -> Bool {
        effects.append(
            .publish(
                topic: message.topic.name, payload: Array(payload), qos: message.qos, retain: message.retain, what: message.what,
                stamped: message.stamped))
        return true
    }

    func subscribe(_ filters: [String], qos: QoS, for role: any ConnectionRole) { effects.append(.subscribe(filters, qos)) }
    func setWill(_ will: Will) throws(ClientSetupError) { effects.append(.will(will)) }
    func setPassword(_ password: String) throws(ClientSetupError) {}
    func holdTelemetry(_ held: Bool) { effects.append(.hold(held)) }
    func hold(device: Int, _ held: Bool) { effects.append(.holdDevice(device, held)) }
    func elapsed(of device: Int) -> Double { 0 }

    func take(_ command: DeviceCommand, device: Int) throws(CommandRejection) {
        if let refusal { throw refusal }
        effects.append(.take(device: device, fields: command.assignments.map(\.field), values: command.assignments.map(\.value)))
    }

    func sayState(of device: Int, what: String) -> Int {
        effects.append(.state(device: device, what: what))
        return 1
    }

    func lastStateAsReply(of device: Int) -> [UInt8] { stateReply }
    func makeTimer(for role: any ConnectionRole) -> RoleTimer? { nil }
    func recordCommandLatency(_ nanoseconds: UInt64) { effects.append(.commandLatency(nanoseconds)) }
    func recordSubscribeLatency(_ nanoseconds: UInt64) { effects.append(.subscribeLatency(nanoseconds)) }
    func warnOnce(_ message: String, key: String?) { effects.append(.warn(message, key: key)) }
    func logEvent(_ message: String) { effects.append(.log(message)) }
    func logCommand(_ message: String) { effects.append(.log(message)) }
}

extension ConnectionRole {
    /// Hands the role a message on `topic` with `payload`, as the connection would; whether it
    /// was the role's.
    func receive(_ topic: String, _ payload: [UInt8], retain: Bool = false, _ context: RoleRecorder) -> Bool {
        Array(topic.utf8).withUnsafeBytes { topicBytes in
            payload.withUnsafeBytes { payloadBytes in
                received(ReceivedMessage(topicBytes: topicBytes, payload: payloadBytes, qos: .atLeastOnce, retain: retain), context)
            }
        }
    }
}
