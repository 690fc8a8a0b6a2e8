import Testing

@testable import Report
@testable import Simulator

/// A capacity step's `lost` counts, on both sides, by a device's sequence numbers: what the
/// device published inside its window, and what of that the verifier received.
@Suite struct StepWindowTests {
    /// What a device's connection does around a hand-over: claim the number, then count it.
    private func publish(_ sequence: Int64, _ window: StepWindow) {
        if window.claim(sequence) { window.countPublished() }
    }

    @Test func bothSidesCountTheSameNumbers() {
        let window = StepWindow()
        // Before the first step nothing counts.
        for sequence in 0..<5 as Range<Int64> { publish(sequence, window) }
        window.received(0)
        #expect(window.counts == StepLoss(published: 0, received: 0))

        window.open()
        // 0–4 were published before: one that arrives now is not the step's.
        window.received(4)
        for sequence in 5..<15 as Range<Int64> { publish(sequence, window) }
        for sequence in 5..<12 as Range<Int64> { window.received(sequence) }
        window.close()
        // Published after the close: not the step's, on either side.
        publish(15, window)
        window.received(15)
        // The step's last come late, after the close, and two never do.
        window.received(12)
        #expect(window.counts == StepLoss(published: 10, received: 8))
        #expect(window.counts.lost == 2)
    }

    /// A message can arrive before libmosquitto's `publish` returns, and a window can open or
    /// close in between: the number claimed before the hand-over decides on both sides.
    @Test func aNumberClaimedBeforeTheWindowMovesIsCountedOnBothSidesOrNeither() {
        let window = StepWindow()
        // Claimed while closed, the window opens, the message arrives: neither side's.
        let before = window.claim(0)
        window.open()
        window.received(0)
        if before { window.countPublished() }
        #expect(window.counts == StepLoss(published: 0, received: 0))
        // Claimed while open, the window closes, the message arrives: both sides'.
        let during = window.claim(1)
        window.close()
        window.received(1)
        if during { window.countPublished() }
        #expect(window.counts == StepLoss(published: 1, received: 1))
    }

    /// A message queued before the opening and sent after it (an older number) is below the
    /// window on both sides; the next opening starts from nothing, and what the last step
    /// sent late does not count in it.
    @Test func aLaterOpeningStartsAfreshAboveWhatWasPublished() {
        let window = StepWindow()
        publish(9, window)
        window.open()
        publish(7, window)
        window.received(7)
        publish(10, window)
        window.close()
        #expect(window.counts == StepLoss(published: 1, received: 0))
        publish(11, window)
        window.open()
        window.received(10)
        publish(12, window)
        window.received(12)
        #expect(window.counts == StepLoss(published: 1, received: 1))
    }

    /// A device that received a copy it could not tell from a new message does not hide what
    /// another device lost.
    @Test func lostIsSummedDeviceByDevice() {
        let sum = StepLoss.none + StepLoss(published: 10, received: 11) + StepLoss(published: 10, received: 8)
        #expect(sum == StepLoss(published: 20, received: 19, lost: 2))
    }
}
