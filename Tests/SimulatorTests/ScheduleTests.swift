import Testing
@testable import Simulator

@Suite struct ScheduleTests {
    /// Ticks due strictly before `seconds` on a virtual clock.
    private func ticks(perSecond: Double, over seconds: Double, start: UInt64 = 5_000_000_000) -> UInt64 {
        var schedule = Schedule(start: start, perSecond: perSecond)
        let end = start + UInt64(seconds * 1e9)
        while schedule.deadline < end { schedule.advance() }
        return schedule.next
    }

    @Test func anHourAtTenHertzIsThirtySixThousandTicks() {
        #expect(ticks(perSecond: 10, over: 3600) == 36_000)
    }

    @Test func ratesThatDoNotDivideASecondDoNotDrift() {
        #expect(ticks(perSecond: 3, over: 3600) == 10_800)
        #expect(ticks(perSecond: 7, over: 24 * 3600) == 7 * 24 * 3600)
        #expect(ticks(perSecond: 1.0 / 60, over: 3600) == 60)
    }

    @Test func deadlinesAreAbsolute() {
        var schedule = Schedule(start: 1_000, perSecond: 10)
        #expect(schedule.deadline == 1_000)
        for _ in 0..<36_000 { schedule.advance() }
        #expect(schedule.deadline == 1_000 + 3_600_000_000_000)
        #expect(schedule.elapsed == 3600)
    }
}
