import MQTT
import Report
import Scenario
import Service
import Simulator

/// `devsim report merge`'s options.
struct ReportMergeOptions: Equatable {
    var reports: [String] = []
    /// `nil`: standard output.
    var output: String?
    /// `--force`: merge reports that are not all shards' too.
    var force = false
}
