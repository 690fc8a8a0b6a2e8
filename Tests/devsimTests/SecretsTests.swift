import Foundation
import Testing
import TestSupport

/// Issue 6, fault 8: a password reaches the broker from a file, the environment or the scenario,
/// and never appears in any output: logs, the report, help, or a refusal.
@Suite(.tags(.integration), .notUnitOnly) struct SecretsTests {
    static let password = "pw-Zq8-never-printed"

    private func scenario(password: String?) throws -> String {
        try ScenarioText(
            broker: ["username: dev"] + (password.map { ["password: \($0)"] } ?? []), topic: "secrets/{index}", publish: "20/s", qos: 1,
            fields: "n: { counter: 0 }"
        ).file("s.yaml")
    }

    private func expectNoSecret(_ texts: [String], _ context: String) {
        for text in texts {
            #expect(!text.contains(Self.password), "the password leaked in \(context)")
        }
    }

    @Test(arguments: ["file", "environment", "scenario"])
    func thePasswordWorksAndIsNeverPrinted(from source: String) throws {
        let broker = try MosquittoBroker(users: ["dev": Self.password], allowAnonymous: false)
        let file = try scenario(password: source == "scenario" ? "${SECRET_PW}" : nil)
        let report = file + ".report.json"
        var arguments = ["--messages", "20", "--report", report, "--verbose"]
        var environment: [String: String] = [:]
        switch source {
        case "file":
            let passwordFile = file + ".pw"
            try (Self.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
            arguments += ["--password-file", passwordFile]
        case "environment":
            environment["DEVSIM_PASSWORD"] = Self.password
        default:
            environment["SECRET_PW"] = Self.password
        }
        let result = try DevsimRun(file, port: broker.port, arguments, statsInterval: "1s", environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let reportText = try String(contentsOfFile: report, encoding: .utf8)
        #expect(reportText.contains("\"acknowledged\" : 20"))
        expectNoSecret([result.stdout, result.stderr, reportText], "a run with the password from the \(source)")
    }

    @Test func aRefusalNamesTheReasonButNotThePassword() throws {
        let broker = try MosquittoBroker(users: ["dev": "the-right-one"], allowAnonymous: false)
        let file = try scenario(password: nil)
        let result = try DevsimRun(
            file, port: broker.port, ["--connect-timeout", "2s", "--verbose"], statsInterval: nil,
            environment: ["DEVSIM_PASSWORD": Self.password])
        #expect(result.status == 3)
        #expect(result.stderr.lowercased().contains("not authori"), "\(result.stderr)")
        expectNoSecret([result.stdout, result.stderr], "a refused run")
    }

    @Test func helpAndDryRunsNeverShowIt() throws {
        let file = try scenario(password: "${SECRET_PW}")
        let help = try DevsimProcess.runToCompletion(args: ["run", "--help"], env: ["DEVSIM_PASSWORD": Self.password], timeout: 30)
        let dry = try DevsimProcess.runToCompletion(
            args: ["run", file, "--dry-run", "--messages", "3"],
            env: ["SECRET_PW": Self.password], timeout: 30)
        let sample = try DevsimProcess.runToCompletion(args: ["sample", file], env: ["SECRET_PW": Self.password], timeout: 30)
        #expect(dry.status == 0)
        expectNoSecret([help.stdout, help.stderr, dry.stdout, dry.stderr, sample.stdout, sample.stderr], "help, dry run or sample")
    }
}
