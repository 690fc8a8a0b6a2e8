import Dispatch
import Glibc
import Report
import Simulator
import Synchronization
import Testing

/// Issue 39, item 4: a run's services start in the order given and its work runs once they all
/// have; they stop in reverse order when it ends, those that serve the conclusion after it. A
/// service that cannot start stops those before it, and the work never begins.
@Suite struct ServiceGroupTests {
    /// What happened, in the order it happened, from any thread.
    final class Events: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ event: String) { list.withLock { $0.append(event) } }
        var all: [String] { list.withLock { $0 } }
    }

    struct Refused: Error {}

    /// A service that says what the group asks of it.
    final class Told: RunService {
        let name: String
        let events: Events
        let refuses: Bool

        init(_ name: String, _ events: Events, refuses: Bool = false) {
            self.name = name
            self.events = events
            self.refuses = refuses
        }

        func start(in group: ServiceGroup) throws {
            guard !refuses else { throw Refused() }
            events.add("start \(name)")
        }

        func stop() { events.add("stop \(name)") }
        func reloading() { events.add("\(name) reloading") }
        func reloaded(_ reload: Reload) { events.add("\(name) reloaded: \(reload.summary)") }
    }

    @Test func servicesStartInOrderThenTheWorkRunsAndTheyStopInReverseTheConclusionBeforeThoseServingIt() throws {
        let events = Events()
        let group = ServiceGroup([
            .init(Told("http", events), servesTheConclusion: true), .init(Told("signals", events)), .init(Told("systemd", events)),
        ])
        let code = try group.run(
            { events.add("work") }, stop: {},
            concluding: {
                events.add("conclude")
                return 4
            })
        #expect(code == 4)
        #expect(
            events.all == ["start http", "start signals", "start systemd", "work", "stop systemd", "stop signals", "conclude", "stop http"])
    }

    @Test func aServiceThatCannotStartStopsThoseBeforeItAndTheWorkNeverBegins() {
        let events = Events()
        let group = ServiceGroup([
            .init(Told("http", events), servesTheConclusion: true), .init(Told("signals", events)),
            .init(Told("systemd", events, refuses: true)),
            .init(Told("last", events)),
        ])
        #expect(throws: Refused.self) {
            try group.run({ events.add("work") }, stop: {}, concluding: { events.add("conclude") })
        }
        #expect(events.all == ["start http", "start signals", "stop signals", "stop http"])
    }

    @Test func aWorkThatThrowsStopsEveryServiceInReverseAndConcludesNothing() {
        let events = Events()
        let group = ServiceGroup([.init(Told("http", events), servesTheConclusion: true), .init(Told("signals", events))])
        #expect(throws: Refused.self) {
            try group.run({ throw Refused() }, stop: {}, concluding: { events.add("conclude") })
        }
        #expect(events.all == ["start http", "start signals", "stop signals", "stop http"])
    }

    @Test func aReloadIsToldToEveryServiceBeforeAndAfterInTheirOrder() throws {
        let events = Events()
        let group = ServiceGroup([.init(Told("http", events)), .init(Told("systemd", events))])
        try group.run(
            { group.reload() }, stop: {},
            reload: {
                events.add("reload")
                return Reload(atSeconds: 1, added: ["rooms"])
            }, concluding: { _ in })
        #expect(
            events.all == [
                "start http", "start systemd", "http reloading", "systemd reloading", "reload", "http reloaded: added rooms",
                "systemd reloaded: added rooms", "stop systemd", "stop http",
            ])
    }

    /// `devsim record`'s recorder cannot be reloaded: a SIGHUP then tells no service anything.
    @Test func aWorkThatCannotBeReloadedIgnoresAReload() throws {
        let events = Events()
        let group = ServiceGroup([.init(Told("signals", events))])
        try group.run({ group.reload() }, stop: {}, concluding: { _ in })
        #expect(events.all == ["start signals", "stop signals"])
    }

    @Test func aStopAskedOfTheGroupReachesItsWorkWhileItRunsOnly() throws {
        let events = Events()
        let group = ServiceGroup([])
        group.requestStop()
        try group.run({ group.requestStop() }, stop: { events.add("stop asked") }, concluding: { _ in })
        #expect(events.all == ["stop asked"])
    }

    /// A real SIGHUP, sent to this process, reaches the work's reload through the signal
    /// service (which leaves SIGINT and SIGTERM to the test runner here). Dispatch registers
    /// the signal's source when it will: one sent before that is lost, so the signal is sent
    /// until a reload comes.
    @Test func aHangUpSignalReloadsTheWorkThroughTheSignalService() throws {
        let reloaded = DispatchSemaphore(value: 0)
        let group = ServiceGroup([.init(SignalService(gracefulShutdown: []))])
        let arrived = try group.run(
            {
                for _ in 0..<600 {
                    kill(getpid(), SIGHUP)
                    if reloaded.wait(timeout: .now() + 0.1) == .success { return true }
                }
                return false
            }, stop: {},
            reload: {
                reloaded.signal()
                return Reload(atSeconds: 0)
            }, concluding: { $0 })
        #expect(arrived)
    }
}
