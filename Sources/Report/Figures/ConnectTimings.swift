/// How long connecting took, phase by phase, as emqtt-bench's QoE figures: a histogram per
/// phase over the attempts a CONNACK accepted (a refused or failed attempt is counted in
/// `connectionErrors`, and its partial times are left out). One per event loop, merged for the
/// report as the latency histograms are.
///
/// Each phase ends when the event loop sees the event that ends it (the socket's readiness, the
/// call that finished a handshake, the CONNACK read), so a loop busy with other connections
/// adds its own lateness to the phase that was under way.
public struct ConnectTimings: Sendable, Equatable {
    /// A phase of a connection attempt, named as the report's keys. The phases after `connect`
    /// tile it: each begins where the one before it ended, so those an attempt had add up to
    /// its `connect`.
    public enum Phase: Int, CaseIterable, Sendable, CodingKey {
        /// The whole: from the attempt's start (the connect call) to the CONNACK.
        case connect
        /// From the connect call to the TCP connection made (the socket has a peer).
        case tcpConnect
        /// From the TCP connection to the TLS handshake finished (mqtts://, wss://).
        case tlsHandshake
        /// From the TCP (or TLS) connection to the broker's HTTP 101 (ws://, wss://).
        case wsUpgrade
        /// From the connection ready to carry MQTT (the end of the phase before) to the CONNACK:
        /// the CONNECT is written at once then, in the same turn of the loop or the next.
        case connack

        public var name: String { stringValue }
    }

    private var histograms: [Histogram]

    public init() {
        histograms = Phase.allCases.map { _ in Histogram() }
    }

    public subscript(phase: Phase) -> Histogram { histograms[phase.rawValue] }

    /// Attempts recorded: connections the broker accepted.
    public var count: UInt64 { self[.connect].count }
    public var isEmpty: Bool { count == 0 }

    /// Records the phases `attempt` had.
    public mutating func record(_ attempt: ConnectAttempt) {
        for (phase, nanoseconds) in attempt.phases() { histograms[phase.rawValue].record(nanoseconds) }
    }

    public mutating func merge(_ other: ConnectTimings) {
        guard !other.isEmpty else { return }
        for index in histograms.indices { histograms[index].merge(other.histograms[index]) }
    }

    /// Each phase's histogram from `data`, those it has; throws what does not fit.
    package init(_ data: ConnectPhases<HistogramData>) throws(HistogramDataError) {
        self.init()
        for phase in Phase.allCases {
            guard let phaseData = data[phase] else { continue }
            do { histograms[phase.rawValue] = try phaseData.histogram() } catch {
                throw HistogramDataError("\(phase.name): \(error.message)")
            }
        }
    }
}

/// One connection attempt's moments, in monotonic nanoseconds, as the loop saw them: its start,
/// the end of each phase it had (`nil` for one whose end was not seen, which then ends with the
/// next one seen), and its CONNACK.
public struct ConnectAttempt: Sendable, Equatable {
    public var started: UInt64
    public var tcpConnected: UInt64?
    /// Whether the attempt had a TLS handshake, and when it was seen finished.
    public var usesTLS: Bool
    public var tlsFinished: UInt64?
    /// Whether the attempt went over a WebSocket, and when the broker's 101 was read.
    public var usesWebSocket: Bool
    public var upgraded: UInt64?
    public var connack: UInt64

    public init(
        started: UInt64, tcpConnected: UInt64?, usesTLS: Bool = false, tlsFinished: UInt64? = nil, usesWebSocket: Bool = false,
        upgraded: UInt64? = nil, connack: UInt64
    ) {
        self.started = started
        self.tcpConnected = tcpConnected
        self.usesTLS = usesTLS
        self.tlsFinished = tlsFinished
        self.usesWebSocket = usesWebSocket
        self.upgraded = upgraded
        self.connack = connack
    }

    /// The phases the attempt had, each in nanoseconds: `connect`, then the others in order.
    /// Each phase ends at its mark held between the end of the one before and the CONNACK (a
    /// clock read out of order cannot make a phase negative, or longer than the whole), so the
    /// phases after `connect` add up to it exactly.
    public func phases() -> [(ConnectTimings.Phase, UInt64)] {
        let start = started
        let end = max(connack, start)
        var ends: [(ConnectTimings.Phase, UInt64?)] = [(.tcpConnect, tcpConnected)]
        if usesTLS { ends.append((.tlsHandshake, tlsFinished)) }
        if usesWebSocket { ends.append((.wsUpgrade, upgraded)) }
        ends.append((.connack, end))
        var phases: [(ConnectTimings.Phase, UInt64)] = [(.connect, end - start)]
        var previous = start
        for (index, (phase, mark)) in ends.enumerated() {
            // A phase whose end was not seen ends with the next one that was.
            let seen = mark ?? ends[(index + 1)...].lazy.compactMap(\.1).first ?? end
            let phaseEnd = min(max(seen, previous), end)
            phases.append((phase, phaseEnd - previous))
            previous = phaseEnd
        }
        return phases
    }
}

extension ConnectTimings {
    /// The timings in a line, for the log at a run's end: `12 connections: connect p50 1.2 ms,
    /// p99 3.4 ms; p99 tcpConnect 0.1 ms, tlsHandshake 2.8 ms, connack 0.5 ms`; `nil` when no
    /// connection was made.
    package var line: String? {
        guard !isEmpty else { return nil }
        func ms(_ histogram: Histogram, _ p: Double) -> String { "\((Double(histogram.percentile(p)) / 1000).rounded() / 1000) ms" }
        let phases = Phase.allCases.filter { $0 != .connect && !self[$0].isEmpty }.map { "\($0.name) \(ms(self[$0], 99))" }
        return "\(count) connection\(count == 1 ? "" : "s"): connect p50 \(ms(self[.connect], 50)), p99 \(ms(self[.connect], 99)); "
            + "p99 " + phases.joined(separator: ", ")
    }
}
