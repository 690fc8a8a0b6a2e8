/// A figure of the run report that an `--expect` assertion can test, and how to read it.
///
/// Values are in the figure's base unit: percentages as percent (99.5, not 0.995), durations in
/// milliseconds (the report's unit), counts as they are. `value` returns `nil` when the report
/// has no such figure, and `unavailable` then says why.
public struct Metric: Sendable {
    package enum Kind: Sendable, Equatable {
        /// A ratio in percent; assertions must give `%`.
        case percentage
        /// A time in milliseconds; assertions must give `ms`, `s` or `us`.
        case duration
        /// A count or other plain number; assertions give no unit.
        case number
    }

    /// The canonical name, as `devsim run --help` lists it (`rate`, `latency.p99`, `failed`).
    public let name: String
    package let kind: Kind
    public let value: @Sendable (RunReport) -> Double?
    /// Why `value` is `nil` for this report: `not available: run with --verify`.
    package let unavailable: @Sendable (RunReport) -> String
    /// What a run must have for the figure to be measured at all, known before it starts.
    package let needs: Need?
    /// A count's share of the messages it is a part of, in percent, for an assertion that gives
    /// `%` (`lost<=0.1%`); `nil` for a count that has none.
    package let share: (@Sendable (RunReport) -> Double?)?

    /// What a figure is measured from.
    package enum Need: Sendable {
        /// The closed-loop check: `run --verify`.
        case verify
        /// Messages the broker acknowledges: a device at QoS 1 or 2.
        case acknowledgements
        /// Deadlines to be late for: a device with a rate, not `publish: max`.
        case schedule
        /// A limit on the wait for acknowledgements (`--ack-timeout`, `broker.ackTimeout`) on
        /// a connection whose devices publish at QoS 1 or 2.
        case ackTimeout
    }

    package init(
        _ name: String, _ kind: Kind, needs: Need? = nil,
        unavailable: @escaping @Sendable (RunReport) -> String = { _ in "not available in this report" },
        share: (@Sendable (RunReport) -> Double?)? = nil,
        value: @escaping @Sendable (RunReport) -> Double?
    ) {
        self.name = name
        self.kind = kind
        self.needs = needs
        self.share = share
        self.value = value
        self.unavailable = unavailable
    }
}
