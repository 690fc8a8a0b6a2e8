import Foundation
import Testing
import TestSupport

/// Issue 16, item 8: what a user who got the broker settings wrong is told, as a sentence that
/// names what to check, and how soon.
@Suite(.tags(.integration), .notUnitOnly) struct ConnectErrorTests {
    @Test func refusedCredentialsNameWhatToCheckAndEndTheRunAtOnce() throws {
        let server = try ScriptedMQTTServer(script: .init(connackCode: 5))
        let file = try RunFiles.scenario("auth.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(
            file, port: server.port, ["--username", "u"], statsInterval: nil, environment: ["DEVSIM_PASSWORD": "wrong"], timeout: 60)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("every connection was refused"), "\(result.stderr)")
        #expect(
            result.stderr.contains("check the user name and password: --username, --password-file or DEVSIM_PASSWORD"), "\(result.stderr)")
        #expect(server.connections.count == 1, "ended at the refusal, not at the 30 s connect timeout")
    }

    @Test func retryRefusedKeepsTryingUntilTheBrokerAccepts() throws {
        // An auth back end that starts late: refused twice, then accepted.
        let server = try ScriptedMQTTServer(scripts: [.init(connackCode: 5), .init(connackCode: 5), .init()])
        let file = try RunFiles.scenario("auth.yaml", "broker: { reconnect: { initial: 100ms, max: 200ms } }\n" + RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--messages", "3", "--retry-refused"], statsInterval: nil, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.connections.count == 3)
    }

    @Test func aPasswordWithoutAUserNameSaysSo() throws {
        let file = try RunFiles.scenario("nouser.yaml", "broker: { password: secret }\n" + RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: try Loopback.freePort(), statsInterval: nil)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("a password but no user name"), "\(result.stderr)")
        #expect(result.stderr.contains("set broker.username, --username or DEVSIM_USERNAME"), "\(result.stderr)")
        #expect(!result.stderr.contains("Invalid function arguments"), "\(result.stderr)")
    }

    @Test func aPasswordFileThatCannotBeReadSaysWhy() throws {
        let file = try RunFiles.scenario("pf.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--username", "u", "--password-file", "nope.txt"], timeout: 30)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--password-file: cannot read 'nope.txt': no such file or directory"), "\(result.stderr)")
    }

    /// Issue 38, item 21: a password from a pipe, as a shell's process substitution and
    /// standard input give it, is read: the dry run, which reads it too, goes on.
    @Test func aPasswordFromAPipeIsRead() throws {
        let file = try RunFiles.scenario("pipe.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimProcess.locateDevsim()
        let run = "'\(devsim)' run '\(file)' --dry-run --messages 1 --username u --password-file"
        for line in ["\(run) <(echo pw)", "echo pw | \(run) /dev/stdin"] {
            let result = try DevsimProcess.runToCompletion(executable: "/bin/bash", args: ["-c", line], timeout: 30)
            #expect(result.status == 0, "\(line): \(result.stderr)")
        }
    }

    /// A name with an empty label fails in the resolver itself, whatever DNS this machine has.
    @Test func aHostThatDoesNotResolveIsNamed() throws {
        let file = try RunFiles.scenario("dns.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--host", "bad..name", "--port", "1883", "--connect-timeout", "1s"], timeout: 30)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("cannot connect: cannot resolve host 'bad..name'"), "\(result.stderr)")
        #expect(!result.stderr.contains("Lookup error"), "\(result.stderr)")
    }
}
