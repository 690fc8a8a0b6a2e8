import MQTT
import Report
import Scenario
import Service
import Simulator

/// `devsim report csv|html REPORT`: a JSON report written again in another format.
struct ReportConvertOptions: Equatable {
    var format: ReportFormat
    var report: String
    /// `nil`: standard output.
    var output: String?
}
