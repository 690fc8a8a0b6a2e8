import Foundation
import Report
import Simulator
import Testing
import TestSupport

/// Issue 27, item 4: each device's own password (a template filled per device) is the broker's
/// business alone, as the fleet's one is (`SecretsTests`). It reaches the broker (the devices
/// connect) and nothing else: not the report in any format, `/metrics`, `/api/status`, or the
/// log at debug level, where libmosquitto's own lines go.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct DeviceSecretsTests {
    @Test func noPasswordInTheReportsMetricsOrLog() throws {
        let sentinel = "Sentinel-7f3a"
        let users = Dictionary(uniqueKeysWithValues: (1...3).map { ("thing-\($0)", "\(sentinel)-thing-\($0)") })
        let broker = try MosquittoBroker(users: users, allowAnonymous: false)
        let file = try RunFiles.scenario(
            "secrets.yaml",
            """
            broker:
              username: "{id}"
              password: "\(sentinel)-{id}"
            devices:
              - name: thing
                count: 3
                id: "thing-{index}"
                topic: "things/{id}"
                publish: 20/s
                qos: 1
                payload: { fields: { v: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try ServedRun(file: file, brokerPort: broker.port, settings: { $0.duration = .seconds(3) }, logLevel: .debug)
        #expect(TestClock.wait(timeout: 15, interval: 0.05) { devsim.log.contains("connected") }, "\(devsim.log)")
        let metrics = try HTTPGet.request(port: devsim.port, path: "/metrics").body
        let status = try HTTPGet.request(port: devsim.port, path: "/api/status").body
        let result = try #require(try devsim.result(timeout: 30))
        #expect(result.totals[.acknowledged] > 0, "the devices connected with their passwords")
        let report = devsim.runReport(result)
        var texts = ["metrics": metrics, "status": status, "log": devsim.log]
        let folder = (file as NSString).deletingLastPathComponent
        for format in [ReportFormat.json, .junit, .csv, .html] {
            let path = folder + "/report.\(format)"
            try ReportFile.write(report, as: format, exitCode: 0, to: path)
            texts["\(format)"] = try String(contentsOfFile: path, encoding: .utf8)
        }
        for (name, text) in texts {
            #expect(!text.isEmpty, "\(name)")
            #expect(!text.contains(sentinel), "\(name) shows a password")
        }
    }

    /// `--username` and `DEVSIM_PASSWORD` are every device's: a credentials file's columns for
    /// them are then unused, which the run says rather than leaving the file to look in effect.
    @Test func theCommandLinesUserOverACredentialsFileIsWarnedOf() throws {
        let folder = try RunFiles.folder(with: [
            "devices.csv": "id,username,password\nd-1,alice,a\n",
            "s.yaml": "broker:\n  credentials: devices.csv\n" + RunFiles.oneDevice,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.yaml").path
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--dry-run", "--messages", "1", "--username", "ops"], env: ["DEVSIM_PASSWORD": "pw"], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "the command line gives every device's username and password, so the 'username' and 'password' columns of "
                    + "\(folder.appendingPathComponent("devices.csv").path) go unused"), "\(result.stderr)")
    }

    /// ThingsBoard's access token is the user name: `sample` and `--dry-run`, which name each
    /// group's first device's user, say where it comes from instead (found by review).
    @Test func sampleAndDryRunShowNoTokenThatIsAUserName() throws {
        let folder = try RunFiles.folder(with: [
            "tokens.csv": "id,token\nd-1,Tok3n-sentinel\n",
            "s.yaml": "broker:\n  username: \"{token}\"\n  credentials: tokens.csv\n" + RunFiles.oneDevice,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.yaml").path
        let sample = try DevsimProcess.runToCompletion(args: ["sample", file], timeout: 30)
        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--messages", "1"], timeout: 30)
        #expect(sample.status == 0 && dry.status == 0, "\(sample.stderr)\(dry.stderr)")
        let csv = folder.appendingPathComponent("tokens.csv").path
        #expect(sample.stdout.contains("as client id d-1, a token from \(csv) as its user"), "\(sample.stdout)")
        #expect(dry.stderr.contains("as client id d-1, a token from \(csv) as its user"), "\(dry.stderr)")
        for text in [sample.stdout, sample.stderr, dry.stdout, dry.stderr] {
            #expect(!text.contains("Tok3n-sentinel"))
        }
    }

    /// Issue 38, item 12: a user name is no secret, from a credentials file's `username` column
    /// too: `sample` and `--dry-run` name it, as the README says, and never the password.
    @Test func sampleAndDryRunNameAUserOfACredentialsFile() throws {
        let folder = try RunFiles.folder(with: [
            "devices.csv": "id,username,password\nd-1,alice,Pa55-sentinel\n",
            "s.yaml": "broker:\n  credentials: devices.csv\n" + RunFiles.oneDevice,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.yaml").path
        let sample = try DevsimProcess.runToCompletion(args: ["sample", file], timeout: 30)
        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--messages", "1"], timeout: 30)
        #expect(sample.status == 0 && dry.status == 0, "\(sample.stderr)\(dry.stderr)")
        #expect(sample.stdout.contains("as client id d-1, user alice with a password"), "\(sample.stdout)")
        #expect(dry.stderr.contains("as client id d-1, user alice with a password"), "\(dry.stderr)")
        for text in [sample.stdout, sample.stderr, dry.stdout, dry.stderr] {
            #expect(!text.contains("Pa55-sentinel"))
        }
    }
}
