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
        let result = try DevsimProcess.runToCompletion(
            args: [
                "run", file, "--connect-timeout", "3s", "--connack-timeout", "1s", "--report", file + ".json", "--stats-interval", "0",
            ], timeout: 20)
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
