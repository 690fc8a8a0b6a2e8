import Foundation
import Testing
import TestSupport

/// Issue 12, item 3: an upgrade that fails is one clear reason, counted in `connectionErrors`,
/// retried with the backoff, and a run that never connects exits 3, as over TCP. Staged by a
/// scripted endpoint, as a real broker answers none of these.
@Suite(.tags(.integration), .notUnitOnly) struct WebSocketRefusalTests {
    @Test(arguments: [
        (ScriptedUpgradeServer.Answer.status("403 Forbidden"), "the broker refused the WebSocket upgrade: 403 Forbidden"),
        (
            .switching(subprotocol: nil),
            "the broker accepted the WebSocket without the 'mqtt' subprotocol (Sec-WebSocket-Protocol: missing): check the path"
        ),
        (.switching(subprotocol: "mqttv3.1"), "without the 'mqtt' subprotocol (Sec-WebSocket-Protocol: mqttv3.1)"),
        (.wrongAccept, "the broker's Sec-WebSocket-Accept is wrong: not a WebSocket server, or a proxy in the way"),
        (.silence, "no answer to the WebSocket upgrade within 1.0s"),
        (.close(code: 1008, reason: "policy violation"), "the broker closed the WebSocket (1008: policy violation)"),
    ])
    func aFailedUpgradeGivesItsReasonAndIsRetriedWithTheBackoff(answer: ScriptedUpgradeServer.Answer, reason: String) throws {
        let server = try ScriptedUpgradeServer(answer: answer)
        let file = try RunFiles.scenario(
            "refused.yaml",
            """
            broker:
              url: "ws://127.0.0.1:\(server.port)/mqtt"
              reconnect: { initial: 200ms, max: 400ms }
            """ + "\n" + RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--connect-timeout", "3s", "--connack-timeout", "1s"], report: true, timeout: 20)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains(reason), "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains(" warning ") && $0.contains(reason) }
        #expect(warnings.count == 1, "logged once, however often it happens:\n\(result.stderr)")
        let errors = try RunFiles.report(file + ".json")["connectionErrors"] as? [String: Int] ?? [:]
        let counted = errors.first { $0.key.contains(reason) }
        #expect((counted?.value ?? 0) >= 2, "counted by reason, once per attempt: \(errors)")
        #expect(server.requests.count >= 2, "retried with the backoff")
        #expect(server.requests.first?.contains("\r\nSec-WebSocket-Protocol: mqtt\r\n") == true)
    }

    /// A close frame once the connection is up is a lost connection, with the broker's words.
    @Test func aCloseFrameAfterTheConnackIsALostConnectionWithItsReason() throws {
        let server = try ScriptedUpgradeServer(answer: .close(code: 1001, reason: "going away", connack: true))
        let file = try RunFiles.scenario(
            "closing.yaml",
            "broker:\n  url: \"ws://127.0.0.1:\(server.port)/mqtt\"\n  reconnect: { initial: 200ms, max: 400ms }\n" + RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--duration", "2s"], report: true, timeout: 20)
        #expect(result.status == 0, "it did connect: \(result.stderr)")
        let reason = "connection lost: the broker closed the WebSocket (1001: going away)"
        let errors = try RunFiles.report(file + ".json")["connectionErrors"] as? [String: Int] ?? [:]
        #expect((errors[reason] ?? 0) >= 2, "\(errors)\n\(result.stderr)")
        #expect(result.stderr.contains(" connected") && result.stderr.contains(reason), "\(result.stderr)")
    }

    @Test func aPortWithNothingListeningIsRefusedAndRetriedWithoutSpinning() throws {
        let port = try Loopback.freePort()
        let file = try RunFiles.scenario(
            "nothing.yaml",
            "broker:\n  url: \"ws://127.0.0.1:\(port)/mqtt\"\n  reconnect: { initial: 200ms, max: 400ms }\n" + RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, ["--connect-timeout", "3s"], report: true)
        TestClock.sleep(2.5)
        let cpu = devsim.process.cpuSeconds ?? .infinity
        #expect(cpu < 1, "devsim used \(cpu) CPU seconds retrying")
        #expect(devsim.waitUntilExit(timeout: 20) == 3, "\(devsim.stderr)")
        #expect(devsim.stderr.contains("cannot connect: Connection refused"), "\(devsim.stderr)")
        let errors = try RunFiles.report(file + ".json")["connectionErrors"] as? [String: Int] ?? [:]
        #expect((errors["cannot connect: Connection refused"] ?? 0) >= 3, "retried with the backoff: \(errors)")
    }

    @Test func aURLWithAPasswordIsRefusedWithTheReason() throws {
        let result = try DevsimProcess.runToCompletion(
            args: ["run", "s.yaml", "--url", "wss://meter:secret@broker.example/mqtt"], timeout: 20)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "--url: 'wss://meter:***@broker.example/mqtt' holds a password, which would show in ps and in logs: "
                    + "give it with --password-file, DEVSIM_PASSWORD or broker.password"), "\(result.stderr)")
        #expect(!result.stderr.contains("secret"))
    }
}
