import Testing

@testable import Simulator

/// A capacity step's `lost` counts, on both sides, by a device's sequence numbers: what the
/// device published inside its window, and what of that the verifier received.
@Suite struct StepWindowTests {
    @Test func bothSidesCountTheSameNumbers() {
        let window = StepWindow()
        // Before the first step nothing counts.
        for sequence in 0..<5 as Range<Int64> { window.published(sequence) }
        window.received(0)
        #expect(window.counts == StepLoss(published: 0, received: 0))

        window.open()
        // 0–4 were published before: one that arrives now is not the step's.
        window.received(4)
        for sequence in 5..<15 as Range<Int64> { window.published(sequence) }
        for sequence in 5..<12 as Range<Int64> { window.received(sequence) }
        window.close()
        // Published after the close: not the step's, on either side.
        window.published(15)
        window.received(15)
        // The step's last come late, after the close, and two never do.
        window.received(12)
        #expect(window.counts == StepLoss(published: 10, received: 8))
        #expect(window.counts.lost == 2)
    }

    /// A message queued before the opening and sent after it (an older number) is below the
    /// window on both sides; the next opening starts from nothing, and what the last step
    /// sent late does not count in it.
    @Test func aLaterOpeningStartsAfreshAboveWhatWasPublished() {
        let window = StepWindow()
        window.published(9)
        window.open()
        window.published(7)
        window.received(7)
        window.published(10)
        window.close()
        #expect(window.counts == StepLoss(published: 1, received: 0))
        window.published(11)
        window.open()
        window.received(10)
        window.published(12)
        window.received(12)
        #expect(window.counts == StepLoss(published: 1, received: 1))
    }
}
