import Reactor
import Scenario
import Testing

@testable import Report
@testable import Simulator

/// Issue 25, item 3: the status lines name the stage or the capacity step their figures are of,
/// in words made from the `RunPosition` that `/metrics` and the live page show.
@Suite struct RunPhaseTests {
    private func lines(format: Logger.Format, _ report: (StatusReporter) -> Void) -> [String] {
        let lines = Locked<[String]>([])
        let logger = Logger(format: format, minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        report(StatusReporter(logger: logger, connections: { 4 }, start: 0))
        return lines.withLock { $0 }
    }

    @Test func theStatusLineBeginsWithTheStageAndAJSONLineGivesItAsFields() {
        var position = RunPosition()
        position.stages = [RunPosition.Stage(stage: 2, count: 3, target: "x2", seconds: 1, plannedSeconds: 10)]
        let text = lines(format: .text) { $0.report(Totals(), latency: Histogram(), errors: 0, position: position, at: 1_000_000_000) }
        #expect(text.count == 1 && text[0].contains("devsim: stage 2 of 3 (x2): connections 0/4 up, "), "\(text)")
        let json = lines(format: .json) { $0.report(Totals(), latency: Histogram(), errors: 0, position: position, at: 1_000_000_000) }
        #expect(json.count == 1 && json[0].contains("\"stage\":2,\"stages\":3,\"stageTarget\":\"x2\","), "\(json)")
        let none = lines(format: .text) { $0.report(Totals(), latency: Histogram(), errors: 0, at: 1_000_000_000) }
        #expect(none.count == 1 && none[0].contains("devsim: connections 0/4 up, "), "no stages, no stage: \(none)")
    }

    /// The stage under way by the clock, as `/metrics` has it.
    @Test func theStageUnderWayIsTheClocks() {
        let stages = [Stage(duration: 10, target: .rate(.every(seconds: 0.05))), Stage(duration: 10, target: .multiplier(0))]
        let recorder = StageTracker(stages: stages, start: 0)
        func text(at seconds: UInt64) -> String? {
            var position = RunPosition()
            position.stages = [recorder.position(at: seconds * 1_000_000_000)]
            return position.statusText
        }
        #expect(text(at: 5) == "stage 1 of 2 (20/s)")
        #expect(text(at: 15) == "stage 2 of 2 (0/s)")
        #expect(text(at: 25) == "after the last of 2 stages")
        #expect(RunPosition().statusText == nil)
    }

    @Test func aCapacitySearchNamesItsStepItsTargetAndWhatItIsDoing() throws {
        var recorder = CapacityStepper(
            settings: CapacitySettings(
                slos: [try Assertion.slo("p99<50ms")], step: .seconds(1), warmUp: .seconds(1), baseRatePerSecond: 100),
            start: 0)
        func position() -> RunPosition {
            RunPosition(
                stages: [], step: recorder.position, capacityBase: recorder.baseRatePerSecond,
                plan: FleetPlan(scenarios: [], settings: RunSettings()), seconds: 0)
        }
        // The words of the live page, its step and its target those of /metrics.
        #expect(position().statusText == "capacity step 1 (100/s), waiting for the connections")
        recorder.connected(now: 0)
        #expect(position().statusText == "capacity step 1 (100/s), warming up")
        var totals = Totals(), latency = Histogram()
        _ = recorder.record(FigureReading(time: 1_000_000_000, totals: totals, latency: latency))
        #expect(position().statusText == "capacity step 1 (100/s), measuring")
        totals[.published] = 100
        latency.record(2_000_000)
        _ = recorder.record(FigureReading(time: 2_000_000_000, totals: totals, latency: latency))
        #expect(position().statusText == "capacity step 2 (200/s), warming up")
        _ = recorder.record(FigureReading(time: 3_000_000_000, totals: totals, latency: latency))
        totals[.published] += 200
        for _ in 0..<200 { latency.record(90_000_000) }
        let (broken, _) = recorder.record(FigureReading(time: 4_000_000_000, totals: totals, latency: latency))
        #expect(broken?.passed == false)
        // The next step, at the scenarios' rates while the fleet cools down.
        #expect(position().statusText == "capacity step 3 (100/s), cooling down at the scenarios' rates")
        #expect(
            position().statusFields.map(\.key) == ["capacityStep", "targetPerSecond", "capacityActivity"],
            "a JSON line gives them as fields")
    }
}
