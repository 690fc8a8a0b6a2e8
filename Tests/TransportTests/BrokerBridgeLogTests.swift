import Glibc
import Logging
import Reactor
import Testing
import TestSupport
import Transport

/// A bridge, touched on its loop's thread only.
private final class Held: @unchecked Sendable {
    var bridge: BrokerBridge?
}

/// Issue 26, item 5: a WebSocket bridge says at debug level what its delegate does not hear:
/// each step of the attempt, and how its drain ended.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct BrokerBridgeLogTests {
    @Test func theStepsOfAnAttemptAndItsDrainAreLoggedAtDebugLevel() throws {
        let server = try ScriptedUpgradeServer(answer: .switching(subprotocol: "mqtt"))
        let lines = Locked<[String]>([])
        let loop = try EventLoop(name: "bridge", logger: Logger(minimumLevel: .debug) { line in lines.withLock { $0.append(line) } })
        try loop.start()
        defer { loop.stop() }
        let held = Held()
        let path = Locked<String?>(nil)
        loop.execute {
            held.bridge = try? BrokerBridge(
                endpoint: BridgeEndpoint(host: "127.0.0.1", port: Int32(server.port), path: "/mqtt"), loop: loop)
            path.withLock { $0 = held.bridge?.localPath }
        }
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { path.withLock { $0 } != nil })
        // libmosquitto's side: a connection to the bridge's socket, which it takes at `start()`.
        let local = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.withLock { $0 }!.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(local, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(connected == 0)
        loop.execute { try? held.bridge?.start() }
        func logged(_ text: String) -> Bool {
            TestClock.wait(timeout: 5, interval: 0.01) { lines.withLock { $0.contains { $0.contains("WebSocket bridge: " + text) } } }
        }
        #expect(logged("the broker accepted the WebSocket upgrade: frames flow"))
        close(local)
        #expect(logged("the broker closed its side: drained"))
        let said = lines.withLock { $0 }.compactMap { line in
            line.firstRange(of: "WebSocket bridge: ").map { String(line[$0.upperBound...].dropLast()) }
        }
        let broker = "broker=127.0.0.1:\(server.port)"
        #expect(lines.withLock { $0 }.allSatisfy { $0.contains(" debug devsim: loop=bridge \(broker) WebSocket bridge: ") })
        #expect(
            said == [
                "connected to the broker; upgrade request", "the broker accepted the WebSocket upgrade: frames flow",
                "libmosquitto closed its connection: what it sent goes to the broker, then a close frame",
                "the broker closed its side: drained",
            ])
        loop.execute { held.bridge?.close() }
    }
}
