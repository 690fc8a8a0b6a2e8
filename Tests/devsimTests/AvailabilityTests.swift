import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 14, item 1: devices that say whether they are there, as dashboards expect: `online`
/// retained after every CONNACK and before any telemetry, `offline` as the will, and published
/// before a clean DISCONNECT (which suppresses the will).
@Suite(.tags(.integration), .notUnitOnly) struct AvailabilityTests {
    private static let scenario = """
        devices:
          - name: room
            count: 2
            topic: "avail/{id}/climate"
            publish: 10/s
            availability: { topic: "avail/{id}/status" }
            payload: { fields: { seq: { counter: 0 } } }
        """

    private func statuses(_ subscriber: Subscriber) -> [String] {
        subscriber.messages.filter { $0.topic.hasSuffix("/status") }.map { "\($0.topic) \($0.payloadText)" }
    }

    @Test func onlineAfterTheConnackOfflineAtACleanStopAndAsTheWill() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "avail/#")
        let file = try RunFiles.scenario("avail.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { statuses(subscriber).count >= 2 }, "\(devsim.stderr)")
        #expect(Set(statuses(subscriber)) == ["avail/room-1/status online", "avail/room-2/status online"])
        let first = subscriber.messages.first { $0.topic == "avail/room-1/status" || $0.topic == "avail/room-1/climate" }
        #expect(first?.topic == "avail/room-1/status", "online comes before any telemetry")
        TestClock.sleep(0.5)
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { statuses(subscriber).filter { $0.hasSuffix("offline") }.count == 2 })

        // Killed, the connections end without a word: the broker publishes the wills.
        let killed = try DevsimRun.start(file, port: broker.port)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { statuses(subscriber).filter { $0.hasSuffix("online") }.count == 4 })
        killed.sendSignal(SIGKILL)
        _ = killed.waitUntilExit(timeout: 5)
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) { statuses(subscriber).filter { $0.hasSuffix("offline") }.count == 4 },
            "the will: \(statuses(subscriber))")
        // Retained: a dashboard that starts later sees the last word.
        let late = try Subscriber(port: broker.port, topic: "avail/+/status")
        #expect(late.waitFor(count: 2, timeout: 5))
        #expect(Set(late.messages.map(\.payloadText)) == ["offline"])
    }
}
