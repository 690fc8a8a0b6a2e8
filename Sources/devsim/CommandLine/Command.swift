import MQTT
import Report
import Scenario
import Service
import Simulator

/// What the command line asks for.
enum Command: Equatable {
    case run(RunOptions)
    case record(RecordOptions)
    case validate([String])
    case sample(SampleOptions)
    case reportMerge(ReportMergeOptions)
    case reportConvert(ReportConvertOptions)
    case help(topic: String?)
    /// `devsim` alone: the help, on standard error, and exit 2, as for any usage error.
    case missingCommand
    case version
}
