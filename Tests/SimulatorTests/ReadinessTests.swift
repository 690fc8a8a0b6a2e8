import Testing

@testable import Report
@testable import Simulator

/// Issue 26, item 3: one rule of readiness, for systemd's `READY=1` and for `/readyz`.
@Suite struct ReadinessTests {
    @Test func readyWhenTheShareOfTheWantedConnectionsUpReachesTheThreshold() {
        let nine = Readiness(up: 9, wanted: 10, all: 10, paused: 0)
        #expect(nine.percent == 90 && nine.isReady(percent: 90) && !nine.isReady(percent: 100))
        let eight = Readiness(up: 8, wanted: 10, all: 10, paused: 0)
        #expect(eight.percent == 80 && !eight.isReady(percent: 90))
        #expect(Readiness(up: 10, wanted: 10, all: 10, paused: 0).isReady(percent: 100))
    }

    /// Connections down on purpose are not wanted: a paused group leaves the rest ready, and a
    /// fleet paused whole is ready (down as asked), but a fleet of nothing never is.
    @Test func connectionsDownOnPurposeAreNotWanted() {
        let paused = Readiness(up: 1, wanted: 1, all: 3, paused: 2)
        #expect(paused.percent == 100 && paused.isReady(percent: 100))
        let allPaused = Readiness(up: 0, wanted: 0, all: 3, paused: 3)
        #expect(allPaused.percent == 100 && allPaused.isReady(percent: 100))
        let none = Readiness(up: 0, wanted: 0, all: 0, paused: 0)
        #expect(none.percent == 0 && !none.isReady(percent: 1), "no connection is not ready")
    }

    /// The fleet's figures as readiness reads them: the devices' connections, or for a run of
    /// subscribers alone, the subscribers'.
    @Test func theFleetReadsTheDevicesOrTheSubscribersAlone() {
        func live(up: Int, of connections: Int, paused: Int = 0, subscribers: Int = 0, subscribersUp: Int = 0) -> Fleet.Live {
            var totals = Totals()
            totals.connectionsUp = up
            totals.connectionsPaused = paused
            let result = RunResult(
                totals: totals, connectionsUpAtEnd: up, connections: connections, durationSeconds: 1, reason: .running,
                latency: Histogram(), lateness: Histogram(), groups: [(name: "g", totals: totals)], connectionErrors: [:],
                allConnectedSeconds: nil)
            var live = Fleet.Live(result: result, stuckLoops: [])
            live.subscriberConnections = subscribers
            live.subscriberConnectionsUp = subscribersUp
            return live
        }
        #expect(live(up: 1, of: 3, paused: 2).readiness == Readiness(up: 1, wanted: 1, all: 3, paused: 2))
        #expect(live(up: 2, of: 2, subscribers: 4).readiness == Readiness(up: 2, wanted: 2, all: 2, paused: 0), "devices first")
        #expect(live(up: 0, of: 0, subscribers: 4, subscribersUp: 3).readiness == Readiness(up: 3, wanted: 4, all: 4, paused: 0))
    }
}
