import Signals

/// The figures of every loop added up at one moment.
public struct Totals: Sendable, Equatable {
    public var figures = Figures()
    public var connectionsUp = 0
    /// Connections down on purpose (paused by request, away by their lifecycle, out by their
    /// stages): down as asked, not for want of a broker.
    public var connectionsPaused = 0
    /// Sensor faults that fired, over all loops.
    package var faults = FaultCounts()
    /// Commands to the devices, over all loops.
    public var commands = CommandCounts()
    /// `refused`, by reason, over all loops.
    public var refusals = Refusals()

    public init() {}

    public subscript(figure: Figure) -> Int {
        get { figures[figure] }
        set { figures[figure] = newValue }
    }
}
