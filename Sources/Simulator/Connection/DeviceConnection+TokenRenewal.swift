import Glibc
import MQTT
import Mosquitto
import Reactor
import Report
import Transport

/// A connection whose password is an Azure IoT Hub SAS token (`ClientOptions.sasToken`): a token
/// made before each attempt, valid for its lifetime from then, and renewed before it expires by a
/// planned reconnect, since MQTT 3.1.1 cannot re-authenticate a connection in place and the hub
/// closes one whose token has expired.
extension DeviceConnection {
    /// Renewed at 80 % of the lifetime after the CONNACK, as azure-iot-sdk-c does
    /// (`SAS_REFRESH_MULTIPLIER`), up to 5 % of it earlier by the device's jitter, so that a fleet
    /// connected in one ramp does not reconnect in one burst.
    static let renewalShare = 0.8
    static let renewalJitterShare = 0.05

    /// A fresh token for the attempt about to start: `se` is now (wall clock) plus the lifetime.
    func makeToken() throws(ClientSetupError) {
        guard let source = client.options.sasToken else { return }
        let expiry = Int64(time(nil)) + source.lifetime.components.seconds
        try client.setPassword(SASToken.make(resource: source.resource, key: source.key, expiry: expiry))
    }

    /// Up from a CONNACK: the renewal of its token is due at its share of the lifetime.
    func scheduleRenewal(connectedAt now: UInt64) {
        guard let source = client.options.sasToken else { return }
        let lifetime = Double(source.lifetime.components.seconds)
        let share = Self.renewalShare - Self.renewalJitterShare * renewalRandom.nextUnit()
        renewalTimer.schedule(at: now &+ MonotonicClock.nanoseconds(lifetime * share))
    }

    /// The token is due: a clean DISCONNECT and a new connect at once, with a new token. Not
    /// while it is down, paused, away or out (its next connect makes a new token anyway), nor
    /// once the ticking is over.
    func renewToken(now: UInt64) {
        guard isConnected, context.control.isDue(now) else { return }
        let move = standing.reconnect(.tokenRenewal)
        if move != .stay, logsEvents { context.control.logger.info("renewing the SAS token (a planned reconnect)", metadata) }
        follow(move)
    }
}
