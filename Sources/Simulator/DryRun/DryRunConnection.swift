import MQTT
import Mosquitto
import Reactor
import Report
import Signals

/// A device connection of the dry run, on its virtual clock: the behaviours and roles a run's
/// connection has (`DeviceBehaviour`, `ConnectionRoles`), its CONNACK at time zero, and each
/// message it would publish handed to its printer as it goes, the connection's stamp (a
/// Sparkplug node's seq) written as in a run. It is always up: what a run's roles would do to
/// the connection (a lifecycle's stays, a token's renewal) does not happen here.
final class DryRunConnection: RoleContext {
    let plan: ConnectionPlan
    private(set) var roles: ConnectionRoles
    private let stamp: (any MessageStamp)?
    private(set) var devices: [DryRunDevice] = []
    private let clock: DryRunClock
    let printer: DryRunPrinter
    /// The wall clock at its CONNACK, time zero.
    let wallStart: Double
    var outgoing = Outgoing()
    /// The will the roles set for the CONNECT (a Sparkplug node's NDEATH), over the plan's.
    private var will: Will?

    init(
        plan: ConnectionPlan, seed: UInt64, wallStart: Double, clock: DryRunClock, printer: DryRunPrinter,
        scripts: @autoclosure () -> ScriptHost? = nil
    ) {
        self.plan = plan
        self.clock = clock
        self.wallStart = wallStart
        self.printer = printer
        let behaviours = DeviceBehaviour.of(plan, seed: seed, scripts: scripts())
        roles = ConnectionRoles(plan: plan, seed: seed, sources: behaviours.map(\.source))
        stamp = roles.stamp
        will = plan.options.will
        devices = behaviours.enumerated().map { index, behaviour in
            DryRunDevice(plan: plan.devices[index], index: index, behaviour: behaviour, connection: self)
        }
    }

    /// The CONNECT and its CONNACK at time zero: the will it carries, what the roles say, the
    /// devices' clocks started and their states said.
    func connect() {
        for role in roles.all { try? role.willConnect(self) }
        if let will { printer.print(will: will, payload: describe(will.payload, on: will.topic)) }
        for role in roles.all { role.reachedBroker(self) }
        for role in roles.all { role.connected(self) }
        for device in devices { device.start() }
        for device in devices { device.sayStateAtConnect() }
    }

    /// `payload` as a person reads it: a role's words for its own messages (a Sparkplug birth),
    /// else its text, else its bytes in hex.
    private func describe(_ payload: [UInt8], on topic: String) -> String {
        for role in roles.all { if let text = role.describe(payload, on: topic) { return text } }
        return String(validating: payload, as: UTF8.self) ?? DeviceSignals.rawText(payload)
    }

    /// A device's tick message, stamped as the run stamps it, printed; whether it was (the
    /// printer's budget).
    func printTick(_ payload: UnsafeRawBufferPointer, of device: DryRunDevice, slot: Int, at seconds: Double) -> Bool {
        guard printer.hasBudget else { return false }
        let print = { (bytes: UnsafeRawBufferPointer) -> (messageID: Int32, error: MosquittoError?) in
            self.printer.print(
                device.plan, at: seconds, topic: device.topic(slot: slot), payload: device.source.describe(Array(bytes)),
                retain: device.retains(slot: slot), kind: .tick)
            return (0, nil)
        }
        _ = stamp.map { $0.publish(payload, beside: false, print) } ?? print(payload)
        return true
    }

    // MARK: RoleContext

    /// The virtual clock: nanoseconds from every connection's CONNACK.
    var now: UInt64 { clock.now }
    var wallClock: Double { wallStart + Double(now) / 1e9 }
    func secondsIntoRun(_ time: UInt64) -> Double { Double(time) / 1e9 }
    func instant(secondsIntoRun seconds: Double) -> UInt64 { MonotonicClock.nanoseconds(max(0, seconds)) }
    func isTicking(at time: UInt64) -> Bool { true }
    var isConnected: Bool { true }
    var standing: ConnectionStanding { .active }
    var connackEndsPlannedReconnect: ConnectionStanding.PlannedReconnect? { nil }
    func stagesTurned(in isIn: Bool) {}
    func changeStanding(_ change: (inout ConnectionStanding) -> ConnectionStanding.Move) -> ConnectionStanding.Move { .stay }

    @discardableResult
    func publish(_ message: OutboundMessage, payload: UnsafeRawBufferPointer) -> Bool {
        let print = { (bytes: UnsafeRawBufferPointer) -> (messageID: Int32, error: MosquittoError?) in
            self.printer.print(message, at: Double(self.now) / 1e9, payload: self.describe(Array(bytes), on: message.topic.name))
            return (0, nil)
        }
        if message.stamped, let stamp { _ = stamp.publish(payload, beside: true, print) } else { _ = print(payload) }
        return true
    }

    func subscribe(_ filters: [String], qos: QoS, for role: any ConnectionRole) {}
    func setWill(_ will: Will) throws(ClientSetupError) { self.will = will }
    func setPassword(_ password: String) throws(ClientSetupError) {}
    func holdTelemetry(_ held: Bool) {}
    func hold(device: Int, _ held: Bool) { devices[device].isHeld = held }
    var deviceCount: Int { devices.count }
    func elapsed(of device: Int) -> Double { devices[device].elapsed }
    func take(_ command: DeviceCommand, device: Int) throws(CommandRejection) {
        try devices[device].source.take(command.assignments, at: devices[device].elapsed)
    }
    func sayState(of device: Int, what: String) -> Int { devices[device].sayState(what: what) }
    func lastStateAsReply(of device: Int) -> [UInt8] { devices[device].source.stateAsObject(outgoing) ?? outgoing.payload.bytes }
    func makeTimer(for role: any ConnectionRole) -> RoleTimer? { RoleTimer(role: role, context: self, clock: clock) }
    var counters: Counters { printer.counters }
    func recordCommandLatency(_ nanoseconds: UInt64) {}
    func recordSubscribeLatency(_ nanoseconds: UInt64) {}
    func warnOnce(_ message: String, key: String?) {}
    func logEvent(_ message: String) {}
    func logCommand(_ message: String) {}
}
