import CMosquitto
import Glibc
import Logging
import Reactor

/// What a client sees that no delegate call carries: libmosquitto's own log, and the client's
/// own workarounds, as debug lines to its loop's logger (`EventLoop.logger`). What the upper
/// layers count (a connection's loss reason) stays a value, passed through the delegate.
extension Client {
    /// Hands libmosquitto's log lines (`mosquitto_log_callback_set`) to the loop's logger at debug
    /// level, whatever libmosquitto's own level: its warnings and errors (an OpenSSL error, a
    /// packet it did not expect) come with a failure the delegate hears of, which the upper
    /// layers report. Set only when that logger takes debug lines: with a callback set,
    /// libmosquitto makes a line (`malloc`, `vsnprintf`) for every packet it sends or receives,
    /// so a run at the default level pays nothing for it. Each message's packets (PUBLISH and
    /// its acknowledgements) are left out even then: devsim counts them, and a line each would
    /// flood a load test's log (libmosquitto still makes those lines, the cost of a debug run).
    /// Loop thread only, and not from within a callback.
    func logLibraryLines() {
        guard let loop, loop.logger.minimumLevel <= .debug else { return }
        mosquitto_log_callback_set(handle) { _, userData, level, text in
            guard let client = Client.from(userData), let text else { return }
            if level == MOSQ_LOG_DEBUG, Client.isAboutOneMessage(text) { return }
            client.debug("libmosquitto: " + String(cString: text))
        }
    }

    /// Whether a libmosquitto line is about one message's packets: "Client x sending PUBLISH
    /// (…)", "Client x received PUBACK (…)".
    static func isAboutOneMessage(_ text: UnsafePointer<CChar>) -> Bool {
        strstr(text, " sending PUB") != nil || strstr(text, " received PUB") != nil
    }

    /// A debug line of this client's, naming its loop and its client id. Not for the publish
    /// path: the message is made before the level is looked at.
    func debug(_ message: String) {
        guard let loop else { return }
        let id = options.clientID ?? brokerLimits.assignedClientIdentifier ?? "-"
        loop.logger.debug(message, ["loop": .string(loop.name), "client": .string(id)])
    }
}
