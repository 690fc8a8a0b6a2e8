/// Watches for a broker that answers QoS 2 wrongly. RabbitMQ 3.10 answers a QoS 2 PUBLISH with
/// PUBACK: libmosquitto drops the connection with a protocol error, and the resend after each
/// reconnect does it again, for ever. The first losses in a row may be chance; after
/// `lossesToGiveUp` the broker is named as one that breaks QoS 2. A plain value: the connection
/// carries out what its verdicts say.
struct QoS2Guard {
    /// Losses in a row that make a broker one that breaks QoS 2.
    static let lossesToGiveUp = 3

    /// Only a QoS 2 connection is watched.
    private let isWatching: Bool
    /// Connections lost with a protocol error while QoS 2 messages awaited their PUBCOMP, since
    /// the last acknowledgement.
    private(set) var lossesInARow = 0
    /// The broker was found not to handle QoS 2: the connection's QoS 2 messages fail at once
    /// instead of being resent into a connection the broker drops each time.
    private(set) var brokerBreaksQoS2 = false

    init(watching: Bool) {
        isWatching = watching
    }

    enum Verdict: Equatable {
        /// Nothing to do with QoS 2.
        case unrelated
        /// One of the pattern, not yet enough to name the broker: the backoff keeps growing.
        case suspect
        /// The pattern is complete: the broker breaks QoS 2 from now on.
        case brokerBreaksQoS2
    }

    /// A connection was lost, with a protocol error or not, while QoS 2 messages did or did not
    /// await completion. Once the pattern has begun an attempt lost before its CONNACK counts too:
    /// libmosquitto 2.1 reads the socket in bulk and keeps what it read past the PUBACK it choked
    /// on, so each reconnect chokes on a leftover before its CONNACK; otherwise only a loss of a
    /// connection that was up counts.
    mutating func connectionLost(wasUp: Bool, protocolError: Bool, awaitingCompletion: Bool) -> Verdict {
        guard isWatching, !brokerBreaksQoS2, wasUp || lossesInARow > 0 else { return .unrelated }
        guard protocolError, awaitingCompletion else {
            lossesInARow = 0  // "in a row": a loss for another reason breaks it
            return .unrelated
        }
        lossesInARow += 1
        guard lossesInARow >= QoS2Guard.lossesToGiveUp else { return .suspect }
        brokerBreaksQoS2 = true
        return .brokerBreaksQoS2
    }

    /// An acknowledgement came: the broker answered, the losses are no longer in a row.
    mutating func acknowledged() {
        lossesInARow = 0
    }
}
