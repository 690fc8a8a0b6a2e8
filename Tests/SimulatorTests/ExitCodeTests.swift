import Report
import Simulator
import Synchronization
import Testing

/// Issue 39, item 4: the exit code of a run that ended, decided in one place (`ExitCode.ofRun`)
/// with the precedence `devsim run` has always had: no connection (3) over a broken assertion
/// or a capacity search that found no rate (4) over success; and a report that could not be
/// written turns only a success into a failure (1).
@Suite struct ExitCodeTests {
    private let passed = Verdict(assertion: "rate>=99%", passed: true, actual: 100, message: "100%")
    private let failed = Verdict(assertion: "p99<5ms", passed: false, actual: 9, message: "9 ms (4 ms over)")

    /// A search whose one step broke its SLO: no rate met it.
    private var foundNoRate: CapacityFigures {
        var figures = CapacityFigures(slos: ["p99<5ms"], stepSeconds: 15, warmUpSeconds: 5, baseRatePerSecond: 100)
        figures.steps = [
            CapacityStep(
                step: 1, multiplier: 1, targetPerSecond: 100, point: Timeline.Point(at: 5, seconds: 15), verdicts: [failed],
                brokenFirst: failed.assertion)
        ]
        return figures
    }

    @Test func aRunThatEndedAsAskedSucceeds() {
        #expect(ExitCode.ofRun(ended: .duration, verdicts: [], capacity: nil) == .success)
        #expect(ExitCode.ofRun(ended: .requested, verdicts: [passed], capacity: nil) == .success)
    }

    @Test func aBrokenAssertionOrASearchThatFoundNoRateIsFour() {
        #expect(ExitCode.ofRun(ended: .messages, verdicts: [passed, failed], capacity: nil) == .expectationFailed)
        #expect(ExitCode.ofRun(ended: .searched, verdicts: [], capacity: foundNoRate) == .expectationFailed)
        #expect(foundNoRate.foundNoRate)
    }

    @Test func noConnectionSaysMoreThanTheAssertionsItBroke() {
        let reason = StopReason.noConnection("no CONNACK from the broker")
        #expect(ExitCode.ofRun(ended: reason, verdicts: [failed], capacity: foundNoRate) == .noConnection)
    }

    @Test func aMissingReportFailsOnlyARunThatSucceeded() {
        #expect(ExitCode.success.withReportMissing == .failure)
        #expect(ExitCode.expectationFailed.withReportMissing == .expectationFailed)
        #expect(ExitCode.noConnection.withReportMissing == .noConnection)
    }

    @Test func aRefusalIsUsageAndAnyOtherErrorAFailureEachSaid() {
        struct Broken: Error, CustomStringConvertible { var description: String { "the disk broke" } }
        let lines = Mutex<[String]>([])
        let logger = Logger(minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        #expect(ExitCode.after(RunCheckError("--report r.json: 'r.json' is a directory"), logger: logger) == .usage)
        #expect(ExitCode.after(Broken(), logger: logger) == .failure)
        let said = lines.withLock { $0 }
        #expect(said.count == 2)
        #expect(said.first?.contains("--report r.json: 'r.json' is a directory") == true, "\(said)")
        #expect(said.last?.contains("the disk broke") == true, "\(said)")
    }
}
