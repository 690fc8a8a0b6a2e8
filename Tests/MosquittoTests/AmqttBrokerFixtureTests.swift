import Foundation
import Glibc
import Testing
import TestSupport

/// The amqtt fixture, proven with mosquitto's command-line clients (they speak MQTT 3.1.1, which
/// is all amqtt speaks).
@Suite(.tags(.integration), .notUnitOnly) struct AmqttBrokerFixtureTests {
    /// Publishes one message with `mosquitto_pub`; returns its exit status.
    @Test func subscriberReceivesWhatIsPublished() throws {
        let broker = try AmqttBroker()
        #expect(Loopback.acceptsConnections(port: broker.port))
        let subscriber = try Subscriber(port: broker.port, topic: "devices/#", qos: 1)
        #expect(try MosquittoPub.publish(port: broker.port, topic: "devices/d1/telemetry", message: #"{"t":21.5}"#) == 0)
        #expect(subscriber.waitFor(count: 1, timeout: 5), "broker log:\n\(broker.log)")
        #expect(subscriber.messages.map(\.payloadText) == [#"{"t":21.5}"#])
    }

    @Test func killAndRestartKeepThePort() throws {
        let broker = try AmqttBroker()
        let port = broker.port
        let before = try Subscriber(port: port, topic: "t/#")
        broker.kill()
        #expect(!broker.isRunning)
        #expect(!Loopback.acceptsConnections(port: port))
        before.stop()

        try broker.restart()
        #expect(broker.port == port)
        #expect(broker.isRunning)
        let after = try Subscriber(port: port, topic: "t/#")
        #expect(try MosquittoPub.publish(port: port, topic: "t/2", message: "after") == 0)
        #expect(after.waitFor(count: 1, timeout: 5), "broker log:\n\(broker.log)")
        #expect(broker.log.contains("--- restart on port \(port) ---"))
    }

    /// amqtt stays up after it fails to bind, listening nowhere: the fixture must see the failure
    /// in the log rather than take someone else's listener for the broker's.
    @Test func restartOnAPortSomeoneElseHoldsFailsAndSaysWhy() throws {
        let broker = try AmqttBroker()
        broker.kill()
        let squatter = try ListeningSocket(port: broker.port)
        defer { squatter.close() }
        let start = TestClock.now()
        let error = #expect(throws: TestSupportError.self) { try broker.restart() }
        #expect(error?.description.contains("could not bind port \(broker.port)") == true, "\(String(describing: error))")
        #expect(!broker.isRunning, "no amqtt left running after a failed bind")
        #expect(TestClock.now() - start < 30, "each failed bind is noticed in the log, not at the start timeout")
    }

    @Test func stopTerminatesAndDeinitCleansUp() throws {
        var directory = ""
        var pid: pid_t = 0
        do {
            let broker = try AmqttBroker()
            directory = broker.directory
            pid = try #require(broker.pid)
            broker.stop()
            #expect(!broker.isRunning)
        }
        #expect(access(directory, F_OK) != 0, "temporary directory must be removed")
        #expect(kill(pid, 0) != 0, "the broker process must be gone")
    }

    @Test func passwordFileAdmitsKnownUsersOnly() throws {
        let broker = try AmqttBroker(users: ["alice": "secret", "bob": "hunter2"], allowAnonymous: false)
        let subscriber = try Subscriber(port: broker.port, topic: "s", username: "alice", password: "secret")
        #expect(try MosquittoPub.publish(port: broker.port, topic: "s", message: "hi", extra: ["-u", "bob", "-P", "hunter2"]) == 0)
        #expect(subscriber.waitFor(count: 1, timeout: 5), "broker log:\n\(broker.log)")
        #expect(try MosquittoPub.publish(port: broker.port, topic: "s", message: "no", extra: ["-u", "bob", "-P", "wrong"]) != 0)
        #expect(try MosquittoPub.publish(port: broker.port, topic: "s", message: "no", extra: ["-u", "carol", "-P", "secret"]) != 0)
        #expect(try MosquittoPub.publish(port: broker.port, topic: "s", message: "anon") != 0)
    }

    @Test func aMissingVirtualEnvironmentNamesTheInstallScript() throws {
        // DEVSIM_AMQTT, when set, is used instead of the repository's venv.
        guard getenv("DEVSIM_AMQTT") == nil else { return }
        let error = #expect(throws: TestSupportError.self) {
            _ = try AmqttBroker.locateAmqtt(sourceFile: "/nonexistent/Tests/TestSupport/AmqttBroker.swift")
        }
        #expect(error?.description.contains("run scripts/install-amqtt.sh") == true, "\(String(describing: error))")
    }
}

/// A socket listening on 127.0.0.1:`port`, to hold a port against a broker.
private final class ListeningSocket {
    private var fd: Int32

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket failed: \(String(cString: strerror(errno)))") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            close()
            throw TestSupportError("cannot listen on 127.0.0.1:\(port): \(reason)")
        }
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}
