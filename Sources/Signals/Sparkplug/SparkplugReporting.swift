/// Which metrics a device's DDATA carries.
package enum SparkplugReporting: Equatable, Sendable {
    /// Every metric at every tick.
    case everyMetric
    /// Only those whose value changed since it was last sent (report by exception, as
    /// Sparkplug hosts expect from edge nodes): a number by more than `deadband`, anything else
    /// at all. A tick where nothing changed sends nothing.
    case byException(deadband: Double)
}
