import Testing
@testable import Report
@testable import Simulator

@Suite struct BackoffTests {
    @Test func doublesFromInitialToTheCap() {
        var backoff = Backoff(initial: 1, maximum: 64, jitter: 0)
        let delays = (0..<9).map { _ in backoff.nextDelay(unit: 0.5) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 64, 64])
    }

    @Test func jitterSpreadsWithinItsFraction() {
        var low = Backoff(initial: 10, maximum: 64, jitter: 0.2)
        var high = low
        #expect(low.nextDelay(unit: 0) == 8)
        #expect(high.nextDelay(unit: 0.999_999) > 11.99)
    }

    @Test func manyAttemptsNeverOverflow() {
        var backoff = Backoff(initial: 1, maximum: 64, jitter: 0)
        for _ in 0..<200 { _ = backoff.nextDelay(unit: 0.5) }
        #expect(backoff.nextDelay(unit: 0.5) == 64)
    }
}
