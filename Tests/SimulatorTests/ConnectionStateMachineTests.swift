import Testing
@testable import Report
@testable import Simulator

@Suite struct ConnectionStateMachineTests {
    /// Issue 13, item 4: a pause leaves cleanly, sleeps, and a resume connects from scratch.
    @Test func aPausedConnectionLeavesCleanlySleepsAndResumes() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0))
        _ = machine.start()
        _ = machine.connack(accepted: true, now: 0)
        #expect(machine.pause() == .disconnect)
        #expect(machine.state == .pausing)
        #expect(machine.disconnected(random: 0.5, now: 1) == .sleep, "the close completes the pause; no retry")
        #expect(machine.state == .paused && machine.retryDue() == .none)
        #expect(machine.resume() == .connect)
        #expect(machine.connack(accepted: true, now: 2) == .resume(firstTime: false))
    }

    @Test func aPauseGivesUpAnAttemptOrAWaitAndAResumeDuringItsDisconnectWaits() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0))
        _ = machine.start()
        #expect(machine.pause() == .abandonAttempt)
        #expect(machine.connack(accepted: true, now: 0) == .none, "a CONNACK of the abandoned attempt does not wake it")
        _ = machine.resume()
        _ = machine.connack(accepted: true, now: 0)
        _ = machine.disconnected(random: 0.5, now: 0)
        #expect(machine.state == .waiting)
        #expect(machine.pause() == .sleep)
        #expect(machine.resume() == .connect)
        _ = machine.connack(accepted: true, now: 0)
        _ = machine.pause()
        #expect(machine.resume() == .none, "the DISCONNECT is under way")
        #expect(machine.disconnected(random: 0.5, now: 0) == .reconnectSoon, "then it connects again")
        #expect(machine.state == .waiting && machine.retryDue() == .connect, "on the loop's next turn, not within the close")
    }

    @Test func aPausedConnectionStopsAtOnceAndAPausingOneOnItsClose() {
        var paused = ConnectionStateMachine()
        _ = paused.start()
        _ = paused.pause()
        #expect(paused.stop() == .finished)
        var pausing = ConnectionStateMachine()
        _ = pausing.start()
        _ = pausing.connack(accepted: true, now: 0)
        _ = pausing.pause()
        #expect(pausing.stop() == .none)
        #expect(pausing.disconnected(random: 0, now: 0) == .finished)
    }

    @Test func connectsOnStartAndResumesOnAcceptedConnack() {
        var machine = ConnectionStateMachine()
        #expect(machine.start() == .connect)
        #expect(machine.state == .connecting)
        #expect(!machine.isConnected)
        #expect(machine.connack(accepted: true, now: 0) == .resume(firstTime: true))
        #expect(machine.isConnected)
    }

    @Test func refusedConnackDoesNotConnectAndTheCloseRetriesWithBackoff() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0))
        _ = machine.start()
        #expect(machine.connack(accepted: false, now: 0) == .none)
        #expect(!machine.isConnected)
        #expect(machine.disconnected(random: 0.5, now: 0) == .retry(after: 1))
        #expect(machine.retryDue() == .connect)
        _ = machine.connack(accepted: false, now: 0)
        #expect(machine.disconnected(random: 0.5, now: 0) == .retry(after: 2))
        #expect(!machine.hasConnected)
    }

    @Test func lostConnectionPausesThenReconnectResumesNotForTheFirstTime() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0))
        _ = machine.start()
        _ = machine.connack(accepted: true, now: 0)
        #expect(machine.disconnected(random: 0.5, now: 0) == .pauseAndRetry(after: 1))
        #expect(machine.state == .waiting)
        #expect(machine.retryDue() == .connect)
        #expect(machine.connack(accepted: true, now: 0) == .resume(firstTime: false))
    }

    @Test func aConnectionThatStaysUpResetsTheBackoff() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0), stableAfter: 10)
        _ = machine.start()
        #expect(machine.disconnected(random: 0.5, now: 0) == .retry(after: 1))
        _ = machine.retryDue()
        #expect(machine.disconnected(random: 0.5, now: 1) == .retry(after: 2))
        _ = machine.retryDue()
        _ = machine.connack(accepted: true, now: 3)
        #expect(machine.disconnected(random: 0.5, now: 13) == .pauseAndRetry(after: 1))
    }

    @Test func aBrokerThatAcceptsAndDropsAtOnceSeesTheDelaysGrow() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0), stableAfter: 10)
        _ = machine.start()
        var delays: [Double] = []
        var now = 0.0
        for _ in 0..<5 {
            _ = machine.connack(accepted: true, now: now)
            guard case .pauseAndRetry(let delay) = machine.disconnected(random: 0.5, now: now + 0.1) else { break }
            delays.append(delay)
            now += delay + 0.1
            _ = machine.retryDue()
        }
        #expect(delays == [1, 2, 4, 8, 16])
    }

    @Test func aMissingConnackIsRetried() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0))
        _ = machine.start()
        #expect(machine.connackTimedOut(random: 0.5) == .retry(after: 1))
        #expect(machine.state == .waiting)
        #expect(machine.connack(accepted: true, now: 0) == .none, "a CONNACK after giving up is ignored")
    }

    @Test func immediateConnectFailureRetries() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 2, maximum: 64, jitter: 0))
        _ = machine.start()
        #expect(machine.connectFailed(random: 0) == .retry(after: 2))
        #expect(machine.state == .waiting)
    }

    @Test func aLossThatIsNotStableKeepsTheBackoffGrowingHoweverLongTheConnectionWasUp() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0), stableAfter: 10)
        _ = machine.start()
        _ = machine.connack(accepted: true, now: 0)
        #expect(machine.disconnected(random: 0.5, now: 100, stable: false) == .pauseAndRetry(after: 1))
        _ = machine.retryDue()
        _ = machine.connack(accepted: true, now: 101)
        #expect(machine.disconnected(random: 0.5, now: 200, stable: false) == .pauseAndRetry(after: 2))
        _ = machine.retryDue()
        _ = machine.connack(accepted: true, now: 202)
        #expect(machine.disconnected(random: 0.5, now: 300) == .pauseAndRetry(after: 1), "a stable one starts again")
    }

    @Test func stopDisconnectsWhenConnectedAndFinishesOnTheClose() {
        var machine = ConnectionStateMachine()
        _ = machine.start()
        _ = machine.connack(accepted: true, now: 0)
        #expect(machine.stop() == .disconnect)
        #expect(machine.stop() == .none)
        #expect(machine.disconnected(random: 0, now: 0) == .finished)
        #expect(machine.state == .stopped)
    }

    @Test func stopWhileWaitingFinishesAtOnceAndIgnoresTheLateRetry() {
        var machine = ConnectionStateMachine()
        _ = machine.start()
        _ = machine.disconnected(random: 0, now: 0)
        #expect(machine.stop() == .finished)
        #expect(machine.retryDue() == .none)
        #expect(machine.connack(accepted: true, now: 0) == .none)
    }

    @Test func stopBeforeStartFinishes() {
        var machine = ConnectionStateMachine()
        #expect(machine.stop() == .finished)
        #expect(machine.start() == .none)
    }
}
