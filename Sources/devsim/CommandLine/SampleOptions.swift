import MQTT
import Report
import Scenario
import Service
import Simulator

/// `devsim sample`'s options.
struct SampleOptions: Equatable {
    var scenarios: [String] = []
    /// Ticks to show of each device group; `nil` under `--for` alone: every tick of the span.
    var count: Int? = 3
    /// `nil`: a random seed, printed so the values can be shown again.
    var seed: UInt64?
    /// `--for`: the stretch of virtual time to show, from the first CONNACK.
    var span: Duration?
}
