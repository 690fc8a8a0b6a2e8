import MQTT
import Scenario
import Transport

/// A set of TLS settings a run's connections use, and where the scenario names its files: what
/// is checked before a run connects, and by `validate`.
package struct TLSUse: Sendable {
    package var settings: TLSSettings
    /// The path of the mapping that gives them (`broker.tls`).
    package var path: String
    /// The scenario file, and where in it each file is named, by the setting's path.
    package var file: String
    package var locations: [String: SourceLocation]

    package init(settings: TLSSettings, path: String, in scenario: Scenario) {
        self.settings = settings
        self.path = path
        file = scenario.file
        locations = scenario.fileLocations
    }

    /// Every problem with its files (`TLSFiles.problems`), at the place the file is named, or at
    /// the top of the scenario when it came from elsewhere. Reads the files.
    package func problems() -> [Diagnostic] {
        TLSFiles.problems(in: settings).map { problem in
            let setting = path + "." + problem.setting
            let place = locations[setting] ?? SourceLocation(file: file, line: 1, column: 1)
            return Diagnostic(file: place.file, line: place.line, column: place.column, message: "\(setting): \(problem)")
        }
    }
}
