import MQTT
import Mosquitto
import Reactor
import Signals

/// What the connection's roles do through it.
extension DeviceConnection: RoleContext {
    var now: UInt64 { MonotonicClock.now() }
    var wallClock: Double { WallTime.now().secondsSinceEpoch }

    func secondsIntoRun(_ time: UInt64) -> Double {
        let start = context.control.startedAt
        return time >= start ? Double(time - start) / 1e9 : -Double(start - time) / 1e9
    }

    func instant(secondsIntoRun seconds: Double) -> UInt64 {
        context.control.startedAt &+ MonotonicClock.nanoseconds(seconds)
    }

    func isTicking(at time: UInt64) -> Bool { context.control.isDue(time) }

    var connackEndsPlannedReconnect: ConnectionStanding.PlannedReconnect? { tally.connackEndsPlannedReconnect }

    @discardableResult
    func changeStanding(_ change: (inout ConnectionStanding) -> ConnectionStanding.Move) -> ConnectionStanding.Move {
        let move = change(&standing)
        follow(move)
        return move
    }

    @discardableResult
    func publish(_ message: OutboundMessage, payload: UnsafeRawBufferPointer) -> Bool {
        telemetry.publish(message, payload: payload)
    }

    func subscribe(_ filters: [String], qos: QoS, for role: any ConnectionRole) {
        for problem in roles.subscribe(filters, qos: qos, for: role, with: client) { warnOnce("\(role.name): " + problem) }
    }

    func setWill(_ will: Will) throws(ClientSetupError) {
        try client.setWill(will)
    }

    func setPassword(_ password: String) throws(ClientSetupError) {
        try client.setPassword(password)
    }

    func holdTelemetry(_ held: Bool) {
        telemetry.hold(held)
        guard !held else { return }
        telemetry.flush()
        telemetry.wakeSleepers()
    }

    func hold(device: Int, _ held: Bool) {
        if devices.indices.contains(device) { devices[device].isHeld = held }
    }

    var deviceCount: Int { devices.count }

    func elapsed(of device: Int) -> Double {
        devices.indices.contains(device) ? devices[device].elapsed(at: MonotonicClock.now()) : 0
    }

    func take(_ command: DeviceCommand, device: Int) throws(CommandRejection) {
        // None once dismantled: the roles' indices are the plan's devices.
        guard devices.indices.contains(device) else { throw CommandRejection("the device has left the fleet") }
        try devices[device].take(command, now: MonotonicClock.now())
    }

    @discardableResult
    func sayState(of device: Int, what: String) -> Int {
        guard devices.indices.contains(device) else { return 0 }
        return devices[device].sayState(now: MonotonicClock.now(), what: what)
    }

    func lastStateAsReply(of device: Int) -> [UInt8] {
        guard devices.indices.contains(device) else { return [] }
        return devices[device].source.stateAsObject(context.outgoing) ?? context.outgoing.payload.bytes
    }

    func makeTimer(for role: any ConnectionRole) -> RoleTimer? {
        RoleTimer(role: role, context: self, loop: context.loop)
    }

    func recordCommandLatency(_ nanoseconds: UInt64) {
        context.commandLatency.record(nanoseconds)
    }

    func recordSubscribeLatency(_ nanoseconds: UInt64) {
        context.subscribeLatency.record(nanoseconds)
    }

    func warnOnce(_ message: String, key: String?) {
        telemetry.warnOnce(message, key: key)
    }

    func logCommand(_ message: String) {
        context.control.logger.log(settings.logsEvents ? .info : .debug, message, metadata)
    }

    func logEvent(_ message: String) {
        if settings.logsEvents { context.control.logger.info(message, metadata) }
    }
}
