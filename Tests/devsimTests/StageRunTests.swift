import Foundation
import Report
import Simulator
import Testing
import TestSupport

/// A load profile run against a real mosquitto: the run lasts its stages, the report has a
/// figure set per stage that adds up to the run's, and `--expect` judges a stage on its own.
@Suite(.tags(.integration), .notUnitOnly) struct StageRunTests {
    private static let scenario = """
        name: staged
        stages:
          - { duration: 1500ms, rate: 40/s }
          - { duration: 1500ms, multiplier: 4 }
        devices:
          - name: meter
            count: 4
            topic: "staged/{id}"
            publish: 20/s
            qos: 1
            payload: { fields: { n: { counter: 0 } } }
        """

    @Test func theRunLastsItsStagesAndReportsEach() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("staged.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(
            file, port: broker.port, ["--expect", "stage[2].lateness.p99<1s", "--expect", "stage[1].published>=100"], report: true,
            timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report(as: RunReport.self)
        #expect(result.stderr.contains("the run lasts its 2 stages: 3.0s"), "\(result.stderr)")
        #expect(abs(report.durationSeconds - 3) < 0.5)
        let stages = try #require(report.stages)
        #expect(stages.map(\.stage) == [1, 2] && stages.map(\.target) == ["40/s", "x4"] && stages.map(\.plannedSeconds) == [1.5, 1.5])
        #expect(stages.reduce(0) { $0 + $1.point.scheduled } == report[.scheduled])
        #expect(stages.reduce(0) { $0 + $1.point.published } == report[.published])
        // 4 devices from 20/s to 40/s over 1.5 s (45 each), then from 40/s to 80/s (90 each):
        // the profile's integral, give or take the ticks the CONNACKs' few milliseconds and the
        // readings' moved across an edge.
        #expect(abs(stages[0].point.scheduled - 180) <= 8, "\(stages.map(\.point.scheduled))")
        #expect(abs(stages[1].point.scheduled - 360) <= 8, "\(stages.map(\.point.scheduled))")
        #expect(report.expectations?.map(\.passed) == [true, true])
    }

    /// A reconnect storm on purpose: stage 2 drops every connection at once, and the report
    /// says how long the fleet took to be back.
    @Test func aStageThatDisconnectsAllTimesTheFleetsReturn() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "storm.yaml",
            """
            name: storm
            broker: { reconnect: { initial: 300ms, max: 1s } }
            stages:
              - { duration: 1s, multiplier: 1 }
              - { duration: 2s, disconnect: all }
            devices:
              - name: meter
                count: 10
                topic: "storm/{id}"
                publish: 10/s
                payload: { fields: { n: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: broker.port, report: true, statsInterval: "1s", timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report(as: RunReport.self)
        #expect(result.stderr.contains("stage 2: dropping every connection (disconnect: all)"), "\(result.stderr)")
        // Issue 25, item 3: the status lines say which stage their figures are of.
        let statusLines = result.stderr.split(separator: "\n").filter { $0.contains("connections ") && $0.contains(" up, published ") }
        #expect(
            !statusLines.isEmpty && statusLines.allSatisfy { $0.contains(#/devsim: stage [12] of 2 \((x1|hold)\): connections/#) },
            "\(statusLines)")
        let stages = try #require(report.stages)
        #expect(stages.count == 2 && stages[0].recovery == nil && stages[1].target == "hold")
        let recovery = try #require(stages[1].recovery)
        #expect(recovery.dropped == 10 && recovery.back == 10, "\(recovery)")
        // The backoff's first wait, 300 ms ± 20 %, and a CONNACK.
        let (half, most, all) = (try #require(recovery.p50Seconds), try #require(recovery.p90Seconds), try #require(recovery.allSeconds))
        #expect(0.2 <= half && half <= most && most <= all && all < 1.5, "\(recovery)")
        #expect(report[.reconnects] == 10)
        // Issue 25, item 3: drops asked for are counted apart, not as errors.
        #expect(report.connectionErrors.isEmpty, "\(report.connectionErrors)")
        #expect(report.timeline?.points.allSatisfy { $0.errors == 0 } == true)
        #expect(try RunFiles.report(file + ".json")["droppedOnPurpose"] as? Int == 10, "counted apart, for tools that read the report")
        let log = broker.log
        for index in 1...10 { #expect(log.components(separatedBy: " as meter-\(index) (").count - 1 == 2, "meter-\(index)\n\(log)") }
    }

    /// `devices` stages: the fleet grows from none, shrinks and grows again, each device
    /// connecting as the count passes it and leaving cleanly when the count comes down to it,
    /// with no ticks while it is out.
    @Test func devicesStagesConnectAndDisconnectAsTheCountGoes() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "grow.yaml",
            """
            name: grow
            stages:
              - { duration: 1s, devices: 6 }
              - { duration: 2s, devices: 6 }
              - { duration: 1s, devices: 2 }
              - { duration: 2s, devices: 2 }
              - { duration: 2s, devices: 4 }
            devices:
              - name: meter
                count: 6
                topic: "grow/{id}"
                publish: 20/s
                payload: { fields: { n: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: broker.port, report: true, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report(as: RunReport.self)
        let stages = try #require(report.stages)
        #expect(stages.map(\.target) == ["6 devices", "6 devices", "2 devices", "2 devices", "4 devices"])
        // All 6 in from 5/6 s to 3.25 s; 2 from 4 s to 6 s, when rank 2 joins again. The
        // timeline's readings come each second: one falls in each stretch, however late.
        let points = try #require(report.timeline?.points)
        let six = points.filter { (1.3...3.2).contains($0.at + $0.seconds) }
        let two = points.filter { (4.2...5.95).contains($0.at + $0.seconds) }
        #expect(!six.isEmpty && six.allSatisfy { $0.connectionsUp == 6 }, "\(points.map { ($0.at, $0.connectionsUp) })")
        #expect(!two.isEmpty && two.allSatisfy { $0.connectionsUp == 2 }, "\(points.map { ($0.at, $0.connectionsUp) })")
        // Ranks 2 and 3 joined twice (the second time at 6 s and 7 s), ranks 4 and 5 once.
        let log = broker.log
        for (index, times) in [(1, 1), (2, 1), (3, 2), (4, 2), (5, 1), (6, 1)] {
            #expect(log.components(separatedBy: " as meter-\(index) (").count - 1 == times, "meter-\(index)\n\(log)")
        }
        // 31 device-seconds in, by the stages' lines (ranks 0 to 5: 8, 7.83, 5.67, 4.25, 2.83
        // and 2.42 s), at 20/s: no more than that, one tick more for each of the 8 stretches,
        // and no tick is due while its device is out.
        #expect(report[.scheduled] <= 620 + 8 && report[.scheduled] >= 500, "\(report[.scheduled])")
        #expect(report[.skippedOffline] == 0, "\(report[.skippedOffline])")
        // 2 devices at 20/s over stage 4's reading; a late one takes in rank 2's ticks after 6 s.
        let fourth = stages[3].point
        let (least, most) = (40 * fourth.seconds - 4, 40 * fourth.seconds + 20 * max(0, fourth.seconds - 2) + 4)
        #expect((least...most).contains(Double(fourth.scheduled)), "\(stages.map(\.point.scheduled)) over \(fourth.seconds) s")
    }

    /// A group's own stages: it follows them while the group beside it keeps its rate, and its
    /// entry in the report has a figure set per stage, which the HTML report shows.
    @Test func aGroupsOwnStagesAreFollowedAndReportedInItsEntry() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "own.yaml",
            """
            name: own
            defaults: { publish: 20/s, payload: { fields: { n: { counter: 0 } } } }
            devices:
              - name: meter
                count: 4
                topic: "own/{id}"
                stages:
                  - { duration: 1s, devices: 4 }
                  - { duration: 2s, devices: 4 }
                  - { duration: 1s, rate: 40/s }
              - { name: steady, count: 2, topic: "steady/{id}" }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: broker.port, report: true, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report(as: RunReport.self)
        #expect(result.stderr.contains("the run lasts its 3 stages: 4.0s"), "\(result.stderr)")
        #expect(report.stages == nil)
        let meter = try #require(report.groups.first { $0.name == "meter" })
        let steady = try #require(report.groups.first { $0.name == "steady" })
        #expect(steady.stages == nil)
        let stages = try #require(meter.stages)
        #expect(stages.map(\.target) == ["4 devices", "4 devices", "40/s"] && stages.map(\.plannedSeconds) == [1, 2, 1])
        #expect(stages.reduce(0) { $0 + $1.point.scheduled } == meter[.scheduled])
        #expect(stages.reduce(0) { $0 + $1.point.published } == meter[.published])
        // All 4 in by 0.75 s; 4 at 20/s over stage 2's reading, then from 20/s to 40/s (30
        // each), give or take what a late reading moves across a stage's end.
        let second = stages[1].point
        #expect(second.connectionsUp == 4 && abs(Double(second.scheduled) - 80 * second.seconds) <= 6, "\(stages)")
        #expect(abs(stages[2].point.scheduled - 120) <= 20, "\(stages)")
        // The other group at its own 20/s for 4 s.
        #expect(abs(steady[.scheduled] - 160) <= 6, "\(steady[.scheduled])")
        let page = try DevsimProcess.runToCompletion(args: ["report", "html", file + ".json"], timeout: 20)
        #expect(page.stdout.contains("<h2>Stages of device group meter</h2>") && page.stdout.contains("<td>40/s</td>"))
        let merged = try DevsimProcess.runToCompletion(args: ["report", "merge", "--force", file + ".json", file + ".json"], timeout: 20)
        let twice = try JSONDecoder().decode(RunReport.self, from: Data(merged.stdout.utf8))
        #expect(twice.groups.first { $0.name == "meter" }?.stages?.map(\.point.scheduled) == stages.map { 2 * $0.point.scheduled })
    }

    @Test func aStageTheRunDoesNotHaveIsAUsageError() throws {
        let file = try RunFiles.scenario("staged.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(args: ["run", file, "--expect", "stage[3].p99<50ms"], timeout: 30)
        #expect(result.status == 2)
        #expect(result.stderr.contains("stage[3].p99<50ms: the run has 2 stages"), "\(result.stderr)")
        let whole = try DevsimProcess.runToCompletion(args: ["run", file, "--expect", "stage[1].reconnects==0"], timeout: 30)
        #expect(whole.status == 2)
        #expect(whole.stderr.contains("reconnects is a figure of the whole run; per stage the figures are"), "\(whole.stderr)")
    }
}
