/// The life of one MQTT connection, with no I/O: each event returns the action the caller
/// carries out. Publishing is allowed in `connected` only.
///
///     idle → connecting → connected → waiting → connecting → connected …
///                 ↘ (refused / failed) ↗
///
/// Asked to, a connection sleeps (`pause()`: the seed's phone going to the background): it
/// leaves cleanly if connected (`pausing`, then `paused`), gives up an attempt under way, and
/// connects again on `resume()`.
package struct ConnectionStateMachine: Sendable {
    package enum State: Equatable, Sendable {
        case idle
        case connecting
        case connected
        /// Down, with a reconnection attempt planned after a backoff.
        case waiting
        /// DISCONNECT sent, waiting for the socket to close.
        case disconnecting
        /// DISCONNECT sent for a pause, waiting for the socket to close.
        case pausing
        /// Asleep by request: no connection wanted until `resume()`.
        case paused
        case stopped
    }

    package enum Action: Equatable, Sendable {
        case none
        /// Open the connection (first time or again).
        case connect
        /// The broker accepted: start or resume the devices, flush what was kept.
        case resume(firstTime: Bool)
        /// The connection went down: pause the devices, try again after `delay` seconds.
        case pauseAndRetry(after: Double)
        /// An attempt failed before any CONNACK: try again after `delay` seconds.
        case retry(after: Double)
        /// Send DISCONNECT.
        case disconnect
        /// Paused with an attempt under way: give it up, without a word.
        case abandonAttempt
        /// Paused: cancel the planned attempt; the pause is complete.
        case sleep
        /// The close of a pause that a resume came during: connect again on the loop's next
        /// turn (`retryDue()`), not from within the report of the close.
        case reconnectSoon
        /// Nothing more will happen on this connection.
        case finished
    }

    package private(set) var state: State = .idle
    package private(set) var backoff: Backoff
    /// Whether a CONNACK has ever accepted this connection.
    package private(set) var hasConnected = false
    /// Seconds a connection must stay up before its backoff starts again from the beginning: a
    /// broker that accepts and drops at once (a client id taken over by another run, an ACL
    /// kick) must see the delays grow, not a reconnection every second forever.
    package let stableAfter: Double
    private var connectedAt = 0.0
    /// `resume()` came while the pause's DISCONNECT was under way: connect once it is done.
    private var resumesAfterPause = false

    package init(backoff: Backoff = Backoff(), stableAfter: Double = 10) {
        self.backoff = backoff
        self.stableAfter = stableAfter
    }

    package var isConnected: Bool { state == .connected }

    /// The connection should be opened.
    package mutating func start() -> Action {
        guard state == .idle else { return .none }
        state = .connecting
        return .connect
    }

    /// The broker answered CONNECT. A refusal is followed by the socket closing, which
    /// `disconnected(random:)` turns into a retry.
    package mutating func connack(accepted: Bool, now: Double) -> Action {
        guard state == .connecting, accepted else { return .none }
        state = .connected
        connectedAt = now
        let firstTime = !hasConnected
        hasConnected = true
        return .resume(firstTime: firstTime)
    }

    /// Opening the connection failed at once (the connect call itself returned an error).
    package mutating func connectFailed(random unit: Double) -> Action {
        guard state == .connecting else { return .none }
        state = .waiting
        return .retry(after: backoff.nextDelay(unit: unit))
    }

    /// No CONNACK came within the time allowed for one: give up on this attempt and retry.
    package mutating func connackTimedOut(random unit: Double) -> Action {
        connectFailed(random: unit)
    }

    /// The socket closed, for whatever reason. `stable: false` says the connection did not
    /// really work however long it was up (the broker dropped it for what was sent), so the
    /// backoff goes on growing.
    package mutating func disconnected(random unit: Double, now: Double, stable: Bool = true) -> Action {
        switch state {
        case .connected:
            state = .waiting
            if stable, now - connectedAt >= stableAfter { backoff.reset() }
            return .pauseAndRetry(after: backoff.nextDelay(unit: unit))
        case .connecting:
            state = .waiting
            return .retry(after: backoff.nextDelay(unit: unit))
        case .disconnecting:
            state = .stopped
            return .finished
        case .pausing:
            state = .paused
            guard resumesAfterPause else { return .sleep }
            resumesAfterPause = false
            state = .waiting
            return .reconnectSoon
        case .idle, .waiting, .paused, .stopped:
            return .none
        }
    }

    /// Sleep until `resume()`: a clean DISCONNECT if connected.
    package mutating func pause() -> Action {
        switch state {
        case .connected:
            state = .pausing
            return .disconnect
        case .connecting:
            state = .paused
            return .abandonAttempt
        case .idle, .waiting:
            state = .paused
            return .sleep
        case .pausing:
            resumesAfterPause = false
            return .none
        case .paused, .disconnecting, .stopped:
            return .none
        }
    }

    /// Wake from a pause: connect now, with the backoff from its start.
    package mutating func resume() -> Action {
        switch state {
        case .paused:
            backoff.reset()
            state = .connecting
            return .connect
        case .pausing:
            resumesAfterPause = true
            return .none
        default:
            return .none
        }
    }

    /// The backoff delay has passed.
    package mutating func retryDue() -> Action {
        guard state == .waiting else { return .none }
        state = .connecting
        return .connect
    }

    /// The run is ending: leave cleanly if connected, otherwise just stop trying.
    package mutating func stop() -> Action {
        switch state {
        case .connected:
            state = .disconnecting
            return .disconnect
        case .disconnecting:
            return .none
        case .pausing:
            // The pause's DISCONNECT is under way; its close finishes the connection.
            state = .disconnecting
            return .none
        case .stopped:
            return .none
        case .idle, .connecting, .waiting, .paused:
            state = .stopped
            return .finished
        }
    }
}
