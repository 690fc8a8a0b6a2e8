import Reactor
import Scenario
import Testing

@testable import Simulator

/// Issue 25, item 3: the status lines name the stage or the capacity step their figures are of.
@Suite struct RunPhaseTests {
    private func lines(format: Logger.Format, _ report: (StatusReporter) -> Void) -> [String] {
        let lines = Locked<[String]>([])
        let logger = Logger(format: format, minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        report(StatusReporter(logger: logger, connections: { 4 }, start: 0))
        return lines.withLock { $0 }
    }

    @Test func theStatusLineBeginsWithTheStageAndAJSONLineGivesItAsFields() {
        let phase = RunPhase.stage(number: 2, count: 3, target: "x2")
        let text = lines(format: .text) { $0.report(Totals(), latency: Histogram(), errors: 0, phase: phase, at: 1_000_000_000) }
        #expect(text.count == 1 && text[0].contains("devsim: stage 2 of 3 (x2): connections 0/4 up, "), "\(text)")
        let json = lines(format: .json) { $0.report(Totals(), latency: Histogram(), errors: 0, phase: phase, at: 1_000_000_000) }
        #expect(json.count == 1 && json[0].contains("\"stage\":2,\"stages\":3,\"stageTarget\":\"x2\","), "\(json)")
        let none = lines(format: .text) { $0.report(Totals(), latency: Histogram(), errors: 0, at: 1_000_000_000) }
        #expect(none.count == 1 && none[0].contains("devsim: connections 0/4 up, "), "no stages, no stage: \(none)")
    }

    @Test func theStageUnderWayIsTheOneAfterThoseClosed() {
        let stages = [Stage(duration: 10, target: .rate(.every(seconds: 0.05))), Stage(duration: 10, target: .multiplier(0))]
        #expect(RunPhase.ofStages(stages, closed: 0)?.text == "stage 1 of 2 (20/s)")
        #expect(RunPhase.ofStages(stages, closed: 1)?.text == "stage 2 of 2 (0/s)")
        #expect(RunPhase.ofStages(stages, closed: 2)?.text == "after the last of 2 stages")
        #expect(RunPhase.ofStages([], closed: 0) == nil)
    }

    @Test func aCapacitySearchNamesItsStepItsTargetAndWhatItIsDoing() throws {
        var recorder = CapacityRecorder(
            settings: CapacitySettings(
                slos: [try Assertion.slo("p99<50ms")], step: .seconds(1), warmUp: .seconds(1), baseRatePerSecond: 100),
            start: 0)
        #expect(recorder.runPhase?.text == "capacity: waiting for the connections")
        recorder.connected(now: 0)
        #expect(recorder.runPhase?.text == "capacity step 1 (100/s), warming up")
        var totals = Totals(), latency = Histogram()
        _ = recorder.record(FigureReading(time: 1_000_000_000, totals: totals, latency: latency))
        #expect(recorder.runPhase?.text == "capacity step 1 (100/s), measuring")
        totals[.published] = 100
        latency.record(2_000_000)
        _ = recorder.record(FigureReading(time: 2_000_000_000, totals: totals, latency: latency))
        #expect(recorder.runPhase?.text == "capacity step 2 (200/s), warming up")
        _ = recorder.record(FigureReading(time: 3_000_000_000, totals: totals, latency: latency))
        totals[.published] += 200
        for _ in 0..<200 { latency.record(90_000_000) }
        let (broken, _) = recorder.record(FigureReading(time: 4_000_000_000, totals: totals, latency: latency))
        #expect(broken?.passed == false)
        #expect(recorder.runPhase?.text == "capacity step 3 (150/s), cooling down at the scenarios' rates first")
        #expect(
            recorder.runPhase?.fields.map(\.key) == ["capacityStep", "targetPerSecond", "capacityActivity"],
            "a JSON line gives them as fields")
    }
}
