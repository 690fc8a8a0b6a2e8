import Testing

@testable import Report
@testable import Simulator

/// Issue 25, item 8: the dry run's and the sample's clock, `+HH:MM:SS.mmm`.
@Suite struct VirtualTimeTests {
    @Test(arguments: [
        (0.0, "+00:00:00.000"), (5, "+00:00:05.000"), (0.1, "+00:00:00.100"), (3725.25, "+01:02:05.250"),
        (86_399.9996, "+24:00:00.000"), (360_000, "+100:00:00.000"), (-1, "+00:00:00.000"),
    ])
    func readsAsAClock(seconds: Double, text: String) {
        #expect(VirtualTime.text(seconds) == text)
    }

    @Test func textOrderIsTimeOrderUnderAHundredHours() {
        let times = stride(from: 0.0, to: 99 * 3600, by: 1234.567)
        #expect(times.map(VirtualTime.text) == times.map(VirtualTime.text).sorted())
    }
}
