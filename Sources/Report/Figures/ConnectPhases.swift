/// A value for each phase of connecting (`ConnectTimings.Phase`) that some attempt had, as the
/// report writes them: `{"connect":…,"tcpConnect":…,"tlsHandshake":…,"wsUpgrade":…,"connack":…}`,
/// a phase no attempt had (TLS without mqtts:// or wss://) absent. `Percentiles` in the
/// report's `connectTimings`, `HistogramData` in its `histograms.connectTimings`.
public struct ConnectPhases<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    private var values: [ConnectTimings.Phase: Value] = [:]

    public subscript(phase: ConnectTimings.Phase) -> Value? {
        get { values[phase] }
        set { values[phase] = newValue }
    }

    /// Each phase of `timings` that holds values, made into `Value`; `nil` when no attempt
    /// was recorded.
    public init?(_ timings: ConnectTimings, _ make: (Histogram) -> Value) {
        guard !timings.isEmpty else { return nil }
        for phase in ConnectTimings.Phase.allCases where !timings[phase].isEmpty { values[phase] = make(timings[phase]) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ConnectTimings.Phase.self)
        for phase in ConnectTimings.Phase.allCases {
            values[phase] = try container.decodeIfPresent(Value.self, forKey: phase)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConnectTimings.Phase.self)
        for phase in ConnectTimings.Phase.allCases { try container.encodeIfPresent(values[phase], forKey: phase) }
    }
}
