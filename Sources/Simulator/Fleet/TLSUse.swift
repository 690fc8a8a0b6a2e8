import Dispatch
import MQTT
import Reactor
import Scenario
import Transport

/// A set of TLS settings a run's connections use, whose connections they are, and where the
/// scenario names its files: what is checked before a run connects, and by `validate`.
package struct TLSUse: Sendable {
    package var settings: TLSSettings
    /// The path of the mapping that gives them (`broker.tls`).
    package var path: String
    /// Where each file is named, by the setting's path (`broker.tls.certificate`): in the
    /// scenario, or on a device's row of its credentials file.
    package var locations: [String: SourceLocation]
    /// The place for a file named elsewhere: the top of the scenario.
    package var file: String
    /// Whose connections use them, as messages name them: `device thing-7`.
    package var users: [String] = []
    /// Whether the client certificate and key are a connection's own (`"certs/{id}.pem"`, or a
    /// credentials file's), which messages name it by.
    package var ownCertificates = false

    package init(settings: TLSSettings, path: String, in scenario: Scenario) {
        self.settings = settings
        self.path = path
        file = scenario.file
        locations = scenario.fileLocations
    }

    /// Every problem with the files of `uses` (`TLSFiles.problems`), at the place each file is
    /// named. A file many connections share is named once; a problem many devices' own files
    /// share (a thousand certificates expired together) shows its first `shown` devices and
    /// counts the rest. Reads the files, several sets at once.
    package static func problems(of uses: [TLSUse], shown: Int = 10) -> [Diagnostic] {
        let found = Locked([[TLSFileProblem]](repeating: [], count: uses.count))
        // ≈1 ms a set of per-device files (`27-research.md` §6): a few threads for thousands.
        DispatchQueue.concurrentPerform(iterations: uses.count) { index in
            let problems = TLSFiles.problems(in: uses[index].settings)
            found.withLock { $0[index] = problems }
        }
        struct Kind: Hashable {
            let setting: String
            let problem: String
        }
        var diagnostics: [Diagnostic] = []
        var reported: Set<[String]> = []
        var shownOfKind: [Kind: Int] = [:]
        var unshown: [(kind: Kind, place: SourceLocation, count: Int)] = []
        for (use, problems) in zip(uses, found.withLock { $0 }) {
            for problem in problems where reported.insert([problem.setting, problem.file, problem.problem]).inserted {
                let setting = use.path + "." + problem.setting
                let kind = Kind(setting: setting, problem: problem.problem)
                let count = shownOfKind[kind, default: 0]
                shownOfKind[kind] = count + 1
                let place = use.locations[setting] ?? SourceLocation(file: use.file, line: 1, column: 1)
                guard count < shown else {
                    if let last = unshown.indices.last(where: { unshown[$0].kind == kind }) {
                        unshown[last].count += 1
                    } else {
                        unshown.append((kind, place, 1))
                    }
                    continue
                }
                let own = use.ownCertificates && use.users.count == 1 && (problem.setting == "certificate" || problem.setting == "key")
                let whose = own ? use.users[0] + ": " : ""
                diagnostics.append(
                    Diagnostic(file: place.file, line: place.line, column: place.column, message: "\(setting): \(whose)\(problem)"))
            }
        }
        for (kind, place, count) in unshown {
            diagnostics.append(
                Diagnostic(
                    file: place.file, line: place.line, column: place.column,
                    message: "\(kind.setting): and \(count) more connections whose file \(kind.problem)"))
        }
        return diagnostics
    }
}

/// The TLS settings of a scenario's connections, each set once, with whose they are.
struct TLSUses {
    private(set) var uses: [TLSUse] = []
    private var indices: [TLSSettings: Int] = [:]
    private let scenario: Scenario
    private let path: String
    private let ownCertificates: Bool

    init(of scenario: Scenario, path: String) {
        self.scenario = scenario
        self.path = path
        ownCertificates = FleetPlan.devicesHaveOwnCertificates(scenario)
    }

    /// `settings` are `user`'s (`device thing-7`); `id` finds the device's row of the
    /// credentials file, where a file named there is.
    mutating func add(_ settings: TLSSettings?, for user: String, id: String) {
        guard let settings else { return }
        if let index = indices[settings] {
            uses[index].users.append(user)
            return
        }
        var use = TLSUse(settings: settings, path: path, in: scenario)
        use.users = [user]
        use.ownCertificates = ownCertificates
        if let credentials = scenario.broker.credentials, let row = credentials.rows[id] {
            for column in [CredentialsFile.Column.certificate, .key] where row[column] != nil {
                use.locations[path + "." + column.rawValue] = SourceLocation(file: credentials.path, line: row.line, column: 1)
            }
        }
        indices[settings] = uses.count
        uses.append(use)
    }
}
