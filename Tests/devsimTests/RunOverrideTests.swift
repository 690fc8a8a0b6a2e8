import Foundation
import Testing
import TestSupport

/// Issue 10, item 7: what the command line overrides of a scenario's broker settings.
@Suite(.tags(.integration), .notUnitOnly) struct RunOverrideTests {
    private func scenario() throws -> String {
        try ScenarioText(
            broker: ["protocol: mqtt311", "username: sdammy", "password: not-this-brokers"], topic: "o/{index}", publish: "20/s", qos: 1,
            fields: "n: { counter: 0 }"
        ).file("o.yaml")
    }

    /// A shipped scenario carries credentials (the seed's `sdammy`) that a local broker does not
    /// know; `--anonymous` runs it as it is.
    @Test func anonymousRunsAScenarioWithoutItsCredentials() throws {
        let broker = try MosquittoBroker(users: ["dev": "right"], allowAnonymous: true)
        let file = try scenario()
        defer { RunFiles.removeFolder(of: file) }
        let arguments = ["--messages", "10", "--connect-timeout", "2s"]
        let refused = try DevsimRun(file, port: broker.port, arguments, statsInterval: nil)
        #expect(refused.status == 3, "the scenario's credentials are refused\n\(refused.stderr)")
        let anonymous = try DevsimRun(file, port: broker.port, arguments + ["--anonymous"], statsInterval: nil)
        #expect(anonymous.status == 0, "\(anonymous.stderr)")
    }

    @Test func protocolOverridesTheScenarios() throws {
        let server = try ScriptedMQTTServer()
        let file = try scenario()
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(
            file, port: server.port, ["--messages", "3"], statsInterval: nil, environment: ["DEVSIM_PROTOCOL": "mqtt5"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.connections.compactMap(\.connect?.protocolLevel) == [5])
    }

    /// Issue 16, item 9: a field the command line replaces needs no interpolation, so the
    /// docs' own `host: ${BROKER_HOST}` runs under `--host` without BROKER_HOST.
    @Test func aFieldTheCommandLineReplacesNeedsNoVariable() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "env.yaml",
            """
            broker:
              host: ${BROKER_HOST}
              port: ${BROKER_PORT}
              username: ${BROKER_USER}
            devices:
              - name: d
                topic: t
                publish: 20/s
                payload: { fields: { n: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--host", "127.0.0.1", "--messages", "3", "--anonymous"],
            env: ["DEVSIM_PORT": String(broker.port)], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        // What no flag replaces is still read, and its variable still needed.
        let unset = try DevsimProcess.runToCompletion(
            args: ["run", file, "--host", "127.0.0.1", "--messages", "3"], env: ["DEVSIM_PORT": String(broker.port)], timeout: 30)
        #expect(unset.status == 2)
        #expect(unset.stderr.contains("environment variable 'BROKER_USER' is not set"), "\(unset.stderr)")
        #expect(!unset.stderr.contains("BROKER_HOST"), "\(unset.stderr)")
    }
}
