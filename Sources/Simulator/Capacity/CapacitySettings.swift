import Report

/// How `run --find-capacity` searches: the SLOs every step must meet, and how long each step
/// warms up and then holds.
public struct CapacitySettings: Sendable {
    public var slos: [Assertion]
    /// Measured: the step's figures are this long's.
    public var step: Duration
    /// Before each step's hold, at its rate but not measured: what the step before left
    /// queued drains, and a broker's caches settle.
    public var warmUp: Duration
    /// The scenarios' aggregate rate, messages a second: the first step's target.
    public var baseRatePerSecond: Double
    package var resolution = CapacitySearch.defaultResolution
    package var maximum = CapacitySearch.defaultMaximum

    /// Whether an SLO judges `lost`: each step then counts, by sequence number, what it
    /// published and what of it the closed-loop check received (`StepWindow`).
    public var countsLoss: Bool { slos.contains { $0.metric.name == "lost" } }

    public init(slos: [Assertion], step: Duration, warmUp: Duration, baseRatePerSecond: Double) {
        self.slos = slos
        self.step = step
        self.warmUp = warmUp
        self.baseRatePerSecond = baseRatePerSecond
    }
}
