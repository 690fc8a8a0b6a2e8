import Testing
@testable import Report
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

/// A command's answer made between ticks reads the device's time as the ticks do, also after a
/// rate change whose schedule starts at the tick still to come.
@Suite struct ScheduleElapsedTests {
    @Test func theTimeBetweenTicksGoesOnFromTheLastOne() {
        var schedule = Schedule(start: 1_000_000_000, perSecond: 1)
        schedule.advance()
        #expect(abs(schedule.elapsed(at: 1_500_000_000) - 0.5) < 1e-9)
        let faster = schedule.rescheduled(perSecond: 10, at: 1_600_000_000)
        // The pending tick, at 2 s (1 s in), stays: the new schedule starts there, with 1 s before it.
        #expect(faster.start == 2_000_000_000 && faster.elapsedBefore == 1)
        #expect(abs(faster.elapsed(at: 1_700_000_000) - 0.7) < 1e-9, "not 0, and not 1: the time now")
        #expect(Schedule(start: 5_000_000_000, perSecond: 1).elapsed(at: 1_000_000_000) == 0, "never before the start")
    }
}
