import Report
import Simulator
import Testing

/// How `--verify` tells messages gone missing while every connection was up (a subscriber that
/// fell behind the broker's queue for it) from those lost when a connection went.
@Suite struct VerifyPaceTests {
    private typealias Sample = (published: Int, received: Int, losses: Int, subscribed: Bool)

    private func pace(_ samples: [Sample]) -> VerifyPace {
        var pace = VerifyPace()
        for (second, sample) in samples.enumerated() {
            pace.record(
                .init(
                    accepted: sample.published, received: sample.received, losses: sample.losses,
                    allSubscribed: sample.subscribed, time: UInt64(second) * 1_000_000_000))
        }
        return pace
    }

    @Test func whatIsInFlightCancelsOutOnceItHasArrived() {
        // 40,000 a second, what is in flight swinging by hundreds, then everything arrived.
        let keptUp = pace([
            (0, 0, 0, true), (40_000, 39_700, 0, true), (80_000, 79_900, 0, true),
            (120_000, 119_400, 0, true), (120_000, 120_000, 0, true),
        ])
        #expect(keptUp.missingWhileConnected == 0)
        #expect(keptUp.accepted == 120_000 && keptUp.seconds == 4)
    }

    @Test func messagesThatNeverArriveWhileEverythingIsUpAreCounted() {
        let behind = pace([(0, 0, 0, true), (40_000, 38_000, 0, true), (80_000, 76_500, 0, true), (80_000, 79_000, 0, true)])
        #expect(behind.missingWhileConnected == 1_000)
        #expect(behind.received == 79_000 && behind.seconds == 3)
        #expect(behind.fellBehind, "short in two seconds in a row, by more than 1 %")
    }

    /// A broker that drops a little for a subscriber behind: gaps in the devices' numbers in a
    /// second away from any restart make it so, however small a share of what was sent (here
    /// 0.6 %, a busy machine's devsim publishing slowly); gaps next to a restart do not.
    @Test func gapsAwayFromARestartAreFallingBehind() {
        var pace = VerifyPace()
        let samples: [(published: Int, received: Int, gaps: Int)] = [
            (0, 0, 0), (33_000, 32_800, 40), (66_000, 65_600, 85), (99_000, 98_400, 130), (99_000, 98_400, 130),
        ]
        for (second, sample) in samples.enumerated() {
            pace.record(
                .init(
                    accepted: sample.published, received: sample.received, losses: 0, time: UInt64(second) * 1_000_000_000,
                    gaps: sample.gaps))
        }
        #expect(pace.missingWhileConnected == 600 && pace.fellBehind)
        // One burst, in a second of its own (a stall of the subscriber's): behind all the same.
        var burst = VerifyPace()
        for (second, gaps) in [0, 0, 4, 4, 4].enumerated() {
            burst.record(
                .init(
                    accepted: second * 100, received: second * 100 - (gaps > 0 ? 20 : 0), losses: 0, time: UInt64(second) * 1_000_000_000,
                    gaps: gaps))
        }
        #expect(burst.fellBehind)
        // A message lost at a restart: its gap shows the second after the restart's, or before it.
        for losses in [[0, 0, 1, 1, 1], [0, 0, 0, 1, 1]] {
            var restart = VerifyPace()
            for (second, gaps) in [0, 0, 0, 1, 1].enumerated() {
                restart.record(
                    .init(accepted: second * 3, received: second * 3 - (gaps > 0 ? 1 : 0), losses: losses[second], gaps: gaps))
            }
            #expect(!restart.fellBehind, "one message at a restart's edge: \(losses)")
        }
    }

    /// Issue 38, item 16 (the trial's D-H): one message missing, its gap in a second that
    /// counts, at equal rates (97 and 97 msg/s): the subscribers kept up with the broker.
    @Test func oneMessageMissingAtEqualRatesIsNotFallingBehind() {
        var pace = VerifyPace()
        for second in 0...30 {
            let missing = second >= 15 ? 1 : 0
            pace.record(
                .init(
                    accepted: second * 97, received: second * 97 - missing, losses: 0, time: UInt64(second) * 1_000_000_000,
                    gaps: missing))
        }
        #expect(pace.missingWhileConnected == 1)
        #expect(pace.acceptedPerSecond == 97 && pace.receivedPerSecond == 97)
        #expect(!pace.fellBehind)
    }

    /// Issue 24, item 5: one message lost near a restart, at equal rates, is no subscriber
    /// falling behind; nor is a shortfall of what is in flight, made up the second after.
    @Test func aBlipIsNotFallingBehind() {
        let blip = pace([(0, 0, 0, true), (3, 3, 0, true), (6, 5, 0, true), (9, 8, 0, true), (12, 11, 0, true)])
        #expect(blip.missingWhileConnected == 1 && !blip.fellBehind)
        let inFlight = pace([
            (0, 0, 0, true), (40_000, 39_700, 0, true), (80_000, 79_600, 0, true), (120_000, 120_000, 0, true),
        ])
        #expect(inFlight.missingWhileConnected == 0 && !inFlight.fellBehind, "short by 0.75 % and 0.5 %: in flight")
        let apart = pace([(0, 0, 0, true), (100, 90, 0, true), (200, 200, 0, true), (300, 290, 0, true), (300, 300, 0, true)])
        #expect(!apart.fellBehind, "short in seconds that are not in a row")
    }

    @Test func aSecondWithALostConnectionIsTheBrokersDoingNotTheSubscribers() {
        // A broker restart: what it held is gone, and connections were lost in that second.
        let restart = pace([
            (0, 0, 0, true), (40_000, 40_000, 0, true), (50_000, 41_000, 2, true), (90_000, 81_000, 2, true),
            (90_000, 81_000, 2, true),
        ])
        #expect(restart.missingWhileConnected == 0)
    }

    @Test func secondsWhileASubscriberIsDownDoNotCount() {
        // Its loss is in the first second; it waits out its backoff through the next two.
        let down = pace([
            (0, 0, 0, true), (40_000, 30_000, 1, false), (80_000, 30_000, 1, false), (120_000, 70_000, 2, true),
            (160_000, 110_000, 2, true),
        ])
        #expect(down.missingWhileConnected == 0)
    }
}
