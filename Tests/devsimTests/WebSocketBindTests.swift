import Foundation
import Testing
import TestSupport

/// Issue 29: the WebSocket bridge's own TCP connection comes from the bound address too, as
/// libmosquitto's do. In a network namespace of the test's own, as `WebSocketTests`: mosquitto's
/// WebSocket listener binds every interface.
@Suite(.serialized, .tags(.integration, .root), .notUnitOnly) struct WebSocketBindTests {
    @Test func aWebSocketConnectionComesFromItsBoundAddress() throws {
        let namespace = try NetworkNamespace()
        let broker = try MosquittoBroker(extraConfig: ["listener 8080", "protocol websockets"], namespace: namespace)
        let file = try RunFiles.scenario(
            "ws-bind.yaml",
            """
            broker: { url: "ws://127.0.0.1:8080/mqtt", bind: [127.0.0.2, 127.0.0.3] }
            devices:
              - name: meter
                count: 4
                topic: "ws/meter/{index}"
                publish: 20/s
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--messages", "40"], namespace: namespace, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)\n\(broker.log)")
        #expect(
            HostsRunTests.sources(in: broker.log) == [
                "meter-1": ["127.0.0.2"], "meter-2": ["127.0.0.3"], "meter-3": ["127.0.0.2"], "meter-4": ["127.0.0.3"],
            ], "\(broker.log)")
    }
}
