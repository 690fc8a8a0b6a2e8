import Foundation
import Signals

/// An edge node's watch of its primary host application (Sparkplug 3.0, 5.x, "Edge Node Session
/// Establishment" and "Termination"): the host's STATE, retained on `spBv1.0/STATE/ID`, says
/// whether it is online. The node publishes its births only once it is, and when it says it is
/// offline, says its NDEATH, disconnects and starts over. A STATE older than the last one taken
/// (by its timestamp) is stale and ignored; one as recent is taken, since the host's will, its
/// offline STATE, repeats the timestamp of the online STATE of its connection. A value, kept
/// by the node's role across its connections.
struct PrimaryHostWatch {
    /// The STATE topic, `spBv1.0/STATE/ID`.
    let topic: String
    private(set) var phase = Phase.awaitingHost
    /// The timestamp of the last STATE taken, across connections: a STATE older than it is stale.
    private(set) var lastTimestamp: UInt64?

    /// Where the node stands with the host on the connection under way.
    enum Phase: Equatable {
        /// Connected: its births, and its devices' data, wait for the host to say it is online.
        case awaitingHost
        /// Its births are out: the host was online when last heard.
        case born
        /// The host went offline: the node has said its NDEATH and is leaving, to wait for the
        /// host on its next connection.
        case leaving
    }

    /// What a STATE has the node do.
    enum Step: Equatable {
        /// The host is online: publish the births.
        case births
        /// The host went offline while the births were out: the NDEATH, a DISCONNECT, and a new
        /// connection, which waits for the host again.
        case leave
        /// What the node already acts on: the host online while it is born, offline while it
        /// waits or leaves.
        case none
        /// Older than the last STATE taken: ignored.
        case stale
    }

    /// The host's STATE payload (3.0, 6.x "STATE"): `{"online": true, "timestamp": 1668…}`, the
    /// timestamp in milliseconds since the epoch.
    struct State: Decodable, Equatable {
        var online: Bool
        /// Absent from a host's that predates the rule: then it is never stale.
        var timestamp: UInt64?

        /// `payload` read as a STATE; `nil` for one that is not JSON with an `online` boolean (and,
        /// if it has one, a timestamp that is a whole number).
        init?(_ payload: [UInt8]) {
            guard let state = try? JSONDecoder().decode(State.self, from: Data(payload)) else { return nil }
            self = state
        }

        init(online: Bool, timestamp: UInt64?) {
            self.online = online
            self.timestamp = timestamp
        }
    }

    init(host: String) {
        topic = SparkplugTopic.state(ofHost: host)
    }

    /// After each CONNACK: the births wait for the host. The last timestamp stays: a STATE
    /// retained from before the connection is stale or not by it.
    mutating func connected() {
        phase = .awaitingHost
    }

    /// Whether the births are out on the connection under way.
    var isBorn: Bool { phase == .born }

    /// A STATE the broker delivered while connected, and what the node does about it.
    mutating func take(_ state: State) -> Step {
        if let timestamp = state.timestamp {
            if let lastTimestamp, timestamp < lastTimestamp { return .stale }
            lastTimestamp = timestamp
        }
        switch (state.online, phase) {
        case (true, .awaitingHost):
            phase = .born
            return .births
        case (false, .born):
            phase = .leaving
            return .leave
        default:
            return .none
        }
    }
}
