import Simulator
import Testing

/// How `--verify` tells messages gone missing while every connection was up (a subscriber too
/// slow for the broker's queue) from those a broker lost when a connection went.
@Suite struct VerifyPaceTests {
    private func missing(_ samples: [(published: Int, received: Int, losses: Int)]) -> Int {
        var pace = VerifyPace()
        for sample in samples { pace.record(.init(published: sample.published, received: sample.received, losses: sample.losses)) }
        return pace.missingWhileConnected
    }

    @Test func whatIsInFlightCancelsOutOnceItHasArrived() {
        // 40,000 a second, what is in flight swinging by hundreds, then everything arrived.
        #expect(missing([(0, 0, 0), (40_000, 39_700, 0), (80_000, 79_900, 0), (120_000, 119_400, 0), (120_000, 120_000, 0)]) == 0)
    }

    @Test func messagesThatNeverArriveWhileEverythingIsUpAreCounted() {
        #expect(missing([(0, 0, 0), (40_000, 38_000, 0), (80_000, 76_500, 0), (80_000, 79_000, 0)]) == 1_000)
    }

    @Test func aSecondWithALostConnectionIsTheBrokersDoingNotTheSubscribers() {
        // A broker restart: what it held is gone, and connections were lost in that second.
        #expect(missing([(0, 0, 0), (40_000, 40_000, 0), (50_000, 41_000, 2), (90_000, 81_000, 2), (90_000, 81_000, 2)]) == 0)
    }
}
