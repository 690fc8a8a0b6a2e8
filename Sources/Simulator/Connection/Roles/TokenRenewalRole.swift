import Glibc
import MQTT
import Mosquitto
import Reactor
import Signals
import Transport

/// A connection whose password is an Azure IoT Hub SAS token (`ClientOptions.sasToken`): a token
/// made before each attempt, valid for its lifetime from then, and renewed before it expires by a
/// planned reconnect, since MQTT 3.1.1 cannot re-authenticate a connection in place and the hub
/// closes one whose token has expired.
final class TokenRenewalRole: ConnectionRole {
    let name = "token renewal"
    private let source: SASTokenSource
    /// The draws of its jitter: from the seed and the client id alone, whichever shard runs it.
    private var random: Xoshiro256StarStar
    private var timer: RoleTimer?

    /// Renewed at 80 % of the lifetime after the CONNACK, as azure-iot-sdk-c does
    /// (`SAS_REFRESH_MULTIPLIER`), up to 5 % of it earlier by the device's jitter, so that a fleet
    /// connected in one ramp does not reconnect in one burst.
    static let renewalShare = 0.8
    static let renewalJitterShare = 0.05

    init?(plan: ConnectionPlan, seed: UInt64) {
        guard let source = plan.options.sasToken else { return nil }
        self.source = source
        random = Seed(seed).derive("devsim.tokenRenewal").derive(plan.options.clientID ?? "").generator()
    }

    /// A fresh token for the attempt about to start: `se` is now (wall clock) plus the lifetime.
    func willConnect(_ context: any RoleContext) throws(ClientSetupError) {
        let expiry = Int64(time(nil)) + source.lifetime.components.seconds
        try context.setPassword(SASToken.make(resource: source.resource, key: source.key, expiry: expiry))
    }

    /// Up from a CONNACK: the renewal of its token is due at its share of the lifetime.
    func connected(_ context: any RoleContext) {
        let lifetime = Double(source.lifetime.components.seconds)
        let share = Self.renewalShare - Self.renewalJitterShare * random.nextUnit()
        if timer == nil { timer = context.makeTimer(for: self) }
        timer?.schedule(at: context.now &+ MonotonicClock.nanoseconds(lifetime * share))
    }

    /// The token is due: a clean DISCONNECT and a new connect at once, with a new token. Not
    /// while it is down, paused, away or out (its next connect makes a new token anyway), nor
    /// once the ticking is over.
    func timerFired(_ timer: RoleTimer, now: UInt64, _ context: any RoleContext) {
        guard context.isConnected, context.isTicking(at: now) else { return }
        if context.changeStanding({ $0.reconnect(.tokenRenewal) }) != .stay {
            context.logEvent("renewing the SAS token (a planned reconnect)")
        }
    }

    func finished(_ context: any RoleContext) {
        timer?.cancel()
    }
}
