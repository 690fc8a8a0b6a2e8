/// A figure every event loop counts, and the one list of them: it drives the per-loop atomics
/// (`Counters`), their sums (`Figures`, `Totals`), each group's part of the report
/// (`GroupFigures`), the report's JSON, `report merge`, the status and finished lines and the
/// `--expect` counts. A case's name is its JSON key and its `--expect` name, a public contract:
/// rename none. Adding a figure is a case here, its words, and its row in the README's report
/// table (`FigureTests` checks that every case has one).
///
/// Every tick lands in exactly one of `published`, `skippedOffline`, `buffered`, `droppedBuffer`,
/// `failed`, `paused` or `unchanged`, so `scheduled` is always their sum; and every QoS 1/2
/// message published in one of `acknowledged`, `refused` or `inFlight`, once its connection has
/// settled (or in `failed`, taken back, where the broker breaks QoS 2). A state said beside the
/// schedule is no tick: it counts in `stateMessages` alone. A planned reconnect that renews a
/// SAS token counts in `tokenRenewals` alone, neither a loss nor a reconnect.
public enum Figure: Int, CaseIterable, Sendable, CodingKey {
    /// Ticks that fell due.
    case scheduled
    /// Messages handed to libmosquitto while connected.
    case published
    /// QoS 1/2 messages the broker acknowledged (PUBACK, PUBCOMP).
    case acknowledged
    /// QoS 1/2 messages the broker refused: an MQTT 5 PUBACK or PUBREC with a reason code of
    /// 0x80 or more (not authorised, quota exceeded…), counted by reason beside the figures.
    case refused
    /// QoS 1/2 messages published and not yet acknowledged (a gauge).
    case inFlight
    /// Ticks that fell while disconnected, under `offline: drop`.
    case skippedOffline
    /// Ticks waiting in a connection's bounded queue (a gauge).
    case buffered
    /// Ticks evicted from a full queue, oldest first.
    case droppedBuffer
    /// Ticks libmosquitto refused to publish.
    case failed
    /// Messages published more than the lateness threshold after their tick's deadline.
    case late
    /// Times a connection came back after being lost.
    case reconnects
    /// QoS 1/2 messages not acknowledged within `broker.ackTimeout` of their publish, each
    /// counted once, whether or not the acknowledgement came later.
    case ackTimeouts
    /// Ticks that fell while their group was paused by request (the service's control).
    case paused
    /// Ticks of an `onChange` group that found its watched fields as last sent, before the
    /// heartbeat was due: looked at, not sent.
    case unchanged
    /// State messages beside the schedule, not ticks: a dashboard's device saying its state at a
    /// CONNACK, or again when Home Assistant restarts.
    case stateMessages
    /// Planned reconnects that renewed a connection's SAS token (Azure IoT Hub) before it
    /// expired: not losses, not among `reconnects`.
    case tokenRenewals
    /// Bytes the Topic Aliases of `properties: { topicAlias: auto }` saved: each PUBLISH's size
    /// had its topic gone in full, less its size as sent (the first on a topic, which carries
    /// topic and alias both, saves less than nothing).
    case aliasBytesSaved
    /// Payloads whose fields came out longer than their group's `payload.size` (a text a
    /// command set, an id in a template): sent at their own length, never cut.
    case oversized
    /// Messages the broker delivered to a device's connection on a topic none of its
    /// subscriptions match (a broker that rewrites topics, RabbitMQ 3.10): taken by no role.
    case unmatched
    /// Calls of a device script's hooks that failed: an error of the script's, its instruction
    /// budget spent, the interpreter's memory cap reached, or an answer of the wrong shape.
    case scriptErrors

    /// No number as a coding key (an `Int` enumeration's synthesized one): a report's error
    /// messages name a figure by its key (`stringValue`, synthesized: the case's name).
    public var intValue: Int? { nil }
    public init?(intValue: Int) { nil }

    /// How the status and finished lines name it: "skipped offline 3".
    var words: String {
        switch self {
        case .scheduled: "scheduled"
        case .published: "published"
        case .acknowledged: "acknowledged"
        case .refused: "refused"
        case .inFlight: "in flight"
        case .skippedOffline: "skipped offline"
        case .buffered: "buffered"
        case .droppedBuffer: "dropped"
        case .failed: "failed"
        case .late: "late"
        case .reconnects: "reconnects"
        case .ackTimeouts: "ack timeouts"
        case .paused: "paused"
        case .unchanged: "unchanged"
        case .stateMessages: "state messages"
        case .tokenRenewals: "token renewals"
        case .aliasBytesSaved: "alias bytes saved"
        case .oversized: "oversized"
        case .unmatched: "unmatched"
        case .scriptErrors: "script errors"
        }
    }

    /// A gauge goes down as well as up; every other figure only counts up. `aliasBytesSaved`
    /// falls by 3 at each topic's first PUBLISH on a connection: as a counter, Prometheus would
    /// read each fall as a reset.
    package var isGauge: Bool { self == .inFlight || self == .buffered || self == .aliasBytesSaved }

    /// What it counts, in a sentence for a reader of `/metrics` (its HELP line).
    package var help: String {
        switch self {
        case .scheduled: "Ticks that fell due."
        case .published: "Messages handed to libmosquitto while connected."
        case .acknowledged: "QoS 1/2 messages the broker acknowledged (PUBACK, PUBCOMP)."
        case .refused: "QoS 1/2 messages the broker refused: an MQTT 5 PUBACK or PUBREC with a reason code of 0x80 or more."
        case .inFlight: "QoS 1/2 messages published and not yet acknowledged."
        case .skippedOffline: "Ticks that fell while disconnected, under offline: drop."
        case .buffered: "Ticks waiting in a connection's bounded queue."
        case .droppedBuffer: "Ticks evicted from a full queue, oldest first."
        case .failed: "Ticks libmosquitto refused to publish."
        case .late: "Messages published more than 2 ms after their tick's deadline."
        case .reconnects: "Times a connection came back after being lost."
        case .ackTimeouts: "QoS 1/2 messages not acknowledged within the ack timeout."
        case .paused: "Ticks that fell while their device group was paused by request."
        case .unchanged: "Ticks of an onChange device group not sent: nothing watched had changed."
        case .stateMessages: "State messages beside the schedule, not ticks: at each CONNACK, and when Home Assistant restarts."
        case .tokenRenewals: "Planned reconnects that renewed a connection's SAS token before it expired (Azure IoT Hub)."
        case .aliasBytesSaved: "Bytes MQTT 5 topic aliases saved over sending each topic in full."
        case .oversized: "Payloads longer than their device group's payload.size, sent at their own length."
        case .unmatched:
            "Messages the broker delivered on a topic none of the connection's subscriptions match, as a broker that rewrites topics does."
        case .scriptErrors:
            "Calls of a device script's hooks that failed: an error, the instruction budget, the memory cap, a wrong answer."
        }
    }

    /// Whether a report must have it to be read: a figure added after reports were first
    /// written is 0 in an older one, so `report merge` still takes those.
    var isInEveryReport: Bool {
        ![
            .ackTimeouts, .paused, .unchanged, .refused, .stateMessages, .tokenRenewals, .aliasBytesSaved, .oversized, .unmatched,
            .scriptErrors,
        ]
        .contains(self)
    }

    /// Whether the periodic status line shows it: it gives rates instead of `scheduled`, and
    /// counts `failed` among its errors.
    package var isInStatusLine: Bool {
        switch self {
        case .scheduled, .failed, .late, .ackTimeouts, .paused, .unchanged, .stateMessages, .tokenRenewals, .aliasBytesSaved, .oversized,
            .unmatched, .scriptErrors:
            false
        default: true
        }
    }

    /// `published 5, acknowledged 4, …` for `figures`, of the figures `include` takes.
    package static func line(_ figures: Figures, _ include: (Figure) -> Bool = { _ in true }) -> String {
        allCases.filter(include).map { "\($0.words) \(figures[$0])" }.joined(separator: ", ")
    }
}
