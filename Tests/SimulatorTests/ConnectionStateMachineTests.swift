import Testing
@testable import Simulator

@Suite struct ConnectionStateMachineTests {
    @Test func connectsOnStartAndResumesOnAcceptedConnack() {
        var machine = ConnectionStateMachine()
        #expect(machine.start() == .connect)
        #expect(machine.state == .connecting)
        #expect(!machine.isConnected)
        #expect(machine.connack(accepted: true) == .resume(firstTime: true))
        #expect(machine.isConnected)
    }

    @Test func refusedConnackDoesNotConnectAndTheCloseRetriesWithBackoff() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0))
        _ = machine.start()
        #expect(machine.connack(accepted: false) == .none)
        #expect(!machine.isConnected)
        #expect(machine.disconnected(random: 0.5) == .retry(after: 1))
        #expect(machine.retryDue() == .connect)
        _ = machine.connack(accepted: false)
        #expect(machine.disconnected(random: 0.5) == .retry(after: 2))
        #expect(!machine.hasConnected)
    }

    @Test func lostConnectionPausesThenReconnectResumesNotForTheFirstTime() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0))
        _ = machine.start()
        _ = machine.connack(accepted: true)
        #expect(machine.disconnected(random: 0.5) == .pauseAndRetry(after: 1))
        #expect(machine.state == .waiting)
        #expect(machine.retryDue() == .connect)
        #expect(machine.connack(accepted: true) == .resume(firstTime: false))
    }

    @Test func successResetsTheBackoff() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 1, maximum: 64, jitter: 0))
        _ = machine.start()
        #expect(machine.disconnected(random: 0.5) == .retry(after: 1))
        _ = machine.retryDue()
        #expect(machine.disconnected(random: 0.5) == .retry(after: 2))
        _ = machine.retryDue()
        _ = machine.connack(accepted: true)
        #expect(machine.disconnected(random: 0.5) == .pauseAndRetry(after: 1))
    }

    @Test func immediateConnectFailureRetries() {
        var machine = ConnectionStateMachine(backoff: Backoff(initial: 2, maximum: 64, jitter: 0))
        _ = machine.start()
        #expect(machine.connectFailed(random: 0) == .retry(after: 2))
        #expect(machine.state == .waiting)
    }

    @Test func stopDisconnectsWhenConnectedAndFinishesOnTheClose() {
        var machine = ConnectionStateMachine()
        _ = machine.start()
        _ = machine.connack(accepted: true)
        #expect(machine.stop() == .disconnect)
        #expect(machine.stop() == .none)
        #expect(machine.disconnected(random: 0) == .finished)
        #expect(machine.state == .stopped)
    }

    @Test func stopWhileWaitingFinishesAtOnceAndIgnoresTheLateRetry() {
        var machine = ConnectionStateMachine()
        _ = machine.start()
        _ = machine.disconnected(random: 0)
        #expect(machine.stop() == .finished)
        #expect(machine.retryDue() == .none)
        #expect(machine.connack(accepted: true) == .none)
    }

    @Test func stopBeforeStartFinishes() {
        var machine = ConnectionStateMachine()
        #expect(machine.stop() == .finished)
        #expect(machine.start() == .none)
    }
}
