import Testing
@testable import Report
@testable import Simulator

@Suite struct GroupCommandTests {
    @Test func commandsAreReadWithTheirArgument() throws {
        #expect(try GroupCommand.parse("pause", .init()) == .pause)
        #expect(try GroupCommand.parse("resume", .init(publish: "ignored")) == .resume)
        #expect(try GroupCommand.parse("rate", .init(publish: "600/min")) == .rate(perSecond: 10))
        #expect(try GroupCommand.parse("scale", .init(count: 40)) == .scale(count: 40))
        #expect(throws: GroupCommandError("rate needs \"publish\", such as {\"publish\": \"5/s\"}")) {
            try GroupCommand.parse("rate", .init())
        }
        #expect(throws: GroupCommandError("\"publish\": expected a rate above zero such as 5/s, not 'max'")) {
            try GroupCommand.parse("rate", .init(publish: "max"))
        }
        #expect(throws: GroupCommandError("scale needs \"count\", such as {\"count\": 50}")) {
            try GroupCommand.parse("scale", .init())
        }
        for count in [0, 2.5, -3] {
            #expect(throws: GroupCommandError.self, "count \(count)") { try GroupCommand.parse("scale", .init(count: count)) }
        }
        #expect(throws: GroupCommandError("unknown command 'stop': expected pause, resume, rate or scale")) {
            try GroupCommand.parse("stop", .init())
        }
    }

    @Test func aRescheduleGoesOnFromWhereTheScheduleWas() {
        var schedule = Schedule(start: 1_000_000_000, perSecond: 2)
        schedule.advance()
        schedule.advance()  // ticks at 1.0 s and 1.5 s, the next due at 2.0 s
        let faster = schedule.rescheduled(perSecond: 10, at: 1_800_000_000)
        #expect(faster.deadline == 2_000_000_000, "the pending tick stays where it was due: the group keeps its spread")
        #expect(abs(faster.elapsed - 1.0) < 1e-9, "its payload time goes on from the old schedule's")
        var next = faster
        next.advance()
        #expect(next.deadline == 2_100_000_000 && abs(next.elapsed - 1.1) < 1e-9, "then the new rate")
        let late = schedule.rescheduled(perSecond: 10, at: 2_500_000_000)
        #expect(late.deadline == 2_500_000_000, "a tick already due is due now")
    }
}
