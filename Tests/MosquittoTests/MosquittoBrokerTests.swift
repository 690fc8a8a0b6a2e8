import Glibc
import Testing
import TestSupport

/// The real-broker fixtures, proven with mosquitto's own command-line clients.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct MosquittoBrokerTests {
    /// Publishes one message with `mosquitto_pub`; returns its exit status.
    @Test func subscriberReceivesWhatIsPublished() throws {
        let broker = try MosquittoBroker()
        #expect(Loopback.acceptsConnections(port: broker.port))
        let subscriber = try Subscriber(broker: broker, topic: "devices/#", qos: 1)

        #expect(try MosquittoPub.publish(port: broker.port, topic: "devices/d1/telemetry", message: #"{"t":21.5}"#) == 0)
        #expect(subscriber.waitFor(count: 1, timeout: 5), "broker log:\n\(broker.log)")
        let message = try #require(subscriber.messages.first)
        #expect(message.topic == "devices/d1/telemetry")
        #expect(message.payloadText == #"{"t":21.5}"#)
        #expect(subscriber.messages.count == 1, "the readiness probe must not be recorded")
        #expect(subscriber.malformedLines.isEmpty)
    }

    /// Issue 38, item 22: a broker is returned once every listener it was given listens, not its
    /// own port alone (a test's subscriber on a second listener was refused under load). Twenty
    /// TLS listeners after the plain one, each loading its certificate, make the wait a long one.
    @Test func everyListenerListensOnceTheBrokerIsReturned() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let ports = try (0..<20).map { _ in try Loopback.freePort() }
        let broker = try MosquittoBroker(extraConfig: ports.flatMap { ["listener \($0) 127.0.0.1"] + certificates.listenerConfig })
        let closed = ([broker.port] + ports).filter { !Loopback.acceptsConnections(port: $0) }
        #expect(closed.isEmpty, "not listening yet: \(closed)\n\(broker.log)")
    }

    @Test func multiLinePayloadsAndSpacedTopicsSurviveIntact() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "#")
        #expect(try MosquittoPub.publish(port: broker.port, topic: "a b/c", message: "line 1\nline\t2") == 0)
        #expect(try MosquittoPub.publish(port: broker.port, topic: "empty", message: "") == 0)
        #expect(subscriber.waitFor(count: 2, timeout: 5))
        #expect(subscriber.messages.map(\.topic) == ["a b/c", "empty"])
        #expect(subscriber.messages.map(\.payloadText) == ["line 1\nline\t2", ""])
    }

    @Test func killAndRestartKeepThePort() throws {
        let broker = try MosquittoBroker()
        let port = broker.port
        let first = try Subscriber(broker: broker, topic: "t/#")
        #expect(try MosquittoPub.publish(port: port, topic: "t/1", message: "before") == 0)
        #expect(first.waitFor(count: 1, timeout: 5))
        first.stop()

        broker.kill()
        #expect(!broker.isRunning)
        #expect(!Loopback.acceptsConnections(port: port))

        try broker.restart()
        #expect(broker.port == port)
        #expect(broker.isRunning)
        let second = try Subscriber(broker: broker, topic: "t/#")
        #expect(try MosquittoPub.publish(port: port, topic: "t/2", message: "after") == 0)
        #expect(second.waitFor(count: 1, timeout: 5), "broker log:\n\(broker.log)")
        #expect(second.messages.map(\.payloadText) == ["after"])
        #expect(broker.log.contains("--- restart on port \(port) ---"))
    }

    @Test func restartWhileClientsAreConnectedReusesThePort() throws {
        // Established connections leave the port in TIME_WAIT when the broker is killed.
        let broker = try MosquittoBroker()
        let subscribers = try (0..<3).map { _ in try Subscriber(broker: broker, topic: "x") }
        broker.kill()
        try broker.restart()
        subscribers.forEach { $0.stop() }
        let again = try Subscriber(broker: broker, topic: "x")
        #expect(try MosquittoPub.publish(port: broker.port, topic: "x", message: "ok") == 0)
        #expect(again.waitFor(count: 1, timeout: 5))
    }

    @Test func stopTerminatesAndDeinitCleansUp() throws {
        var directory = ""
        var pid: pid_t = 0
        do {
            let broker = try MosquittoBroker()
            directory = broker.directory
            pid = try #require(broker.pid)
            broker.stop()
            #expect(!broker.isRunning)
            #expect(broker.log.contains("mosquitto version"))
        }
        #expect(access(directory, F_OK) != 0, "temporary directory must be removed")
        #expect(kill(pid, 0) != 0, "the broker process must be gone")
    }

    @Test func passwordFileAdmitsKnownUsersOnly() throws {
        let broker = try MosquittoBroker(users: ["alice": "secret", "bob": "hunter2"], allowAnonymous: false)
        let subscriber = try Subscriber(broker: broker, topic: "s", username: "alice", password: "secret")
        #expect(try MosquittoPub.publish(port: broker.port, topic: "s", message: "hi", extra: ["-u", "bob", "-P", "hunter2"]) == 0)
        #expect(subscriber.waitFor(count: 1, timeout: 5))
        #expect(try MosquittoPub.publish(port: broker.port, topic: "s", message: "no", extra: ["-u", "bob", "-P", "wrong"]) != 0)
        #expect(try MosquittoPub.publish(port: broker.port, topic: "s", message: "anon") != 0)
        #expect(throws: TestSupportError.self) {
            _ = try Subscriber(broker: broker, topic: "s", username: "alice", password: "bad", readyTimeout: 2)
        }
    }

    @Test func badConfigFailsFastWithTheBrokerLog() throws {
        let before = TestClock.now()
        do {
            _ = try MosquittoBroker(extraConfig: ["bogus_option 1"])
            Issue.record("a broker with an unknown option must not start")
        } catch {
            #expect(error.description.contains("bogus_option"), "the error must quote the broker's log: \(error)")
        }
        #expect(TestClock.now() - before < 5, "an exiting broker is noticed before the start timeout")
    }
}
