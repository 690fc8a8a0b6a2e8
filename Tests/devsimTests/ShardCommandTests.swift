import Foundation
import Report
import Scenario
import Service
import Simulator
import Testing
import TestSupport
@testable import devsim

@Suite struct ShardArgumentTests {
    private func run(_ arguments: [String], _ environment: [String: String] = [:]) throws -> RunOptions {
        guard case .run(let options) = try ArgumentParser.parse(["run"] + arguments, environment: environment) else {
            Issue.record("not a run command")
            return RunOptions()
        }
        return options
    }

    @Test func flagVariableAndIndexedJobFallback() throws {
        #expect(try run(["a.yaml"]).shard == nil)
        #expect(try run(["--shard", "2/5", "a.yaml"]).shard == Shard(index: 2, count: 5))
        #expect(try run(["--shard=0/1", "a.yaml"]).shard == Shard(index: 0, count: 1))
        #expect(try run(["a.yaml"], ["DEVSIM_SHARD": "3/4"]).shard == Shard(index: 3, count: 4))
        // A Kubernetes Indexed Job: the pod's index, and the completions passed in DEVSIM_SHARDS.
        let job = ["JOB_COMPLETION_INDEX": "7", "DEVSIM_SHARDS": "10"]
        #expect(try run(["a.yaml"], job).shard == Shard(index: 7, count: 10))
        // The flag, then DEVSIM_SHARD, win over the Job's index.
        #expect(try run(["--shard", "1/2", "a.yaml"], job).shard == Shard(index: 1, count: 2))
        #expect(try run(["a.yaml"], job.merging(["DEVSIM_SHARD": "0/3"]) { $1 }).shard == Shard(index: 0, count: 3))
        // Any Indexed Job sets JOB_COMPLETION_INDEX; without DEVSIM_SHARDS it is not about shards.
        #expect(try run(["a.yaml"], ["JOB_COMPLETION_INDEX": "4"]).shard == nil)
    }

    @Test func badShardsAreUsageErrorsThatSayWhy() {
        #expect(throws: UsageError("--shard: expected K/N, shard K of N counted from 0 (0/4 to 3/4), found '3'")) {
            try run(["--shard", "3", "a.yaml"])
        }
        #expect(
            throws: UsageError(
                "--shard: shard index must be from 0 to 3, found '4/4' (shards count from 0, as JOB_COMPLETION_INDEX does: the last of 4 is 3/4)"
            )
        ) {
            try run(["--shard", "4/4", "a.yaml"])
        }
        #expect(throws: UsageError("--shard: the number of shards must be from 1 to 1000000, found '0/0'")) {
            try run(["--shard", "0/0", "a.yaml"])
        }
        #expect(throws: UsageError("DEVSIM_SHARD: shard index must be from 0 to 1, found '-1/2'")) {
            try run(["a.yaml"], ["DEVSIM_SHARD": "-1/2"])
        }
        #expect(
            throws: UsageError(
                "JOB_COMPLETION_INDEX/DEVSIM_SHARDS: shard index must be from 0 to 9, found '10/10' (shards count from 0, as JOB_COMPLETION_INDEX does: the last of 10 is 9/10)"
            )
        ) {
            try run(["a.yaml"], ["JOB_COMPLETION_INDEX": "10", "DEVSIM_SHARDS": "10"])
        }
        #expect(
            throws: UsageError(
                "JOB_COMPLETION_INDEX/DEVSIM_SHARDS: DEVSIM_SHARDS: expected the number of shards (the Job's completions), found 'ten'")
        ) {
            try run(["a.yaml"], ["JOB_COMPLETION_INDEX": "1", "DEVSIM_SHARDS": "ten"])
        }
        #expect(throws: UsageError.self) { try run(["a.yaml"], ["DEVSIM_SHARDS": "10"]) }
        #expect(throws: UsageError("--shard needs a value (K/N)")) { try run(["a.yaml", "--shard"]) }
    }

    @Test func reportMergeArguments() throws {
        #expect(
            try ArgumentParser.parse(["report", "merge", "a.json", "b.json"], environment: [:])
                == .reportMerge(ReportMergeOptions(reports: ["a.json", "b.json"], output: nil)))
        #expect(
            try ArgumentParser.parse(["report", "merge", "--output", "all.json", "a.json"], environment: [:])
                == .reportMerge(ReportMergeOptions(reports: ["a.json"], output: "all.json")))
        #expect(try ArgumentParser.parse(["report", "--help"], environment: [:]) == .help(topic: "report"))
        #expect(try ArgumentParser.parse(["report"], environment: [:]) == .help(topic: "report"))
        #expect(throws: UsageError("report merge: name at least one report file")) {
            try ArgumentParser.parse(["report", "merge"], environment: [:])
        }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["report", "split", "a.json"], environment: [:]) }
        #expect(Help.general.contains("devsim report merge"))
        #expect(Help.text(topic: "run").contains("--shard K/N"))
        #expect(Help.text(topic: "report").contains("--output FILE"))
    }
}

/// Shards run as separate processes against one broker, their reports merged.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct ShardProcessTests {
    private static let scenario = """
        name: shardtest
        devices:
          - name: sensor
            count: 12
            topic: "shard/{id}"
            publish: 20/s
            qos: 1
            payload: { fields: { seq: { counter: 0 }, v: { uniform: { min: 0, max: 9 }, decimals: 2 } } }
          - name: meter
            count: 6
            topic: "meter/{id}"
            publish: 20/s
            qos: 1
            connection: { shared: 2 }
            payload: { fields: { kwh: { uniform: { min: 0, max: 9 }, decimals: 2 } } }
        """

    @Test func twoShardRunsMergeIntoTheReportOfOneRun() throws {
        let broker = try MosquittoBroker()
        let directory = try RunFiles.folder()
        let file = directory.appendingPathComponent("fleet.yaml").path
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let messagesPerDevice = 5
        func run(_ extra: [String], report: String, messages: Int) throws -> RunReport {
            let path = directory.appendingPathComponent(report).path
            let result = try DevsimRun(
                file, port: broker.port, ["--seed", "5", "--quiet", "--messages", String(messages), "--report", path] + extra,
                statsInterval: nil, timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        }
        // Each shard stops after its own devices' share of the messages.
        let scenario = try ScenarioLoader.load(file: file, environment: [:])
        let sizes = (0..<2).map { index in
            var settings = RunSettings()
            settings.shard = Shard(index: index, count: 2)
            return FleetPlan(scenarios: [scenario], settings: settings).deviceCount
        }
        #expect(sizes.reduce(0, +) == 18)
        let whole = try run([], report: "whole.json", messages: 18 * messagesPerDevice)
        let first = try run(["--shard", "0/2"], report: "s0.json", messages: sizes[0] * messagesPerDevice)
        let second = try run(["--shard", "1/2"], report: "s1.json", messages: sizes[1] * messagesPerDevice)
        #expect(first.shard == Shard(index: 0, count: 2))
        #expect(second.shard == Shard(index: 1, count: 2))

        let output = directory.appendingPathComponent("merged.json").path
        let merge = try DevsimProcess.runToCompletion(
            args: [
                "report", "merge", "--output", output, directory.appendingPathComponent("s0.json").path,
                directory.appendingPathComponent("s1.json").path,
            ], timeout: 30)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stderr.isEmpty, "\(merge.stderr)")
        let merged = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(merged.shard == nil)
        for figure: Figure in [.scheduled, .published, .acknowledged, .failed] {
            #expect(merged[figure] == whole[figure], "\(figure)")
        }
        // Per-device connections are the fleet's whichever shard opens them; `shared: 2` is two
        // connections in every shard (each with its own devices), so two shards open four.
        #expect(whole.connections == 12 + 2)
        #expect(merged.connections == 12 + 2 * 2)
        #expect(merged.connectionsUp == merged.connections)
        #expect(merged[.scheduled] == 18 * messagesPerDevice)
        #expect(merged.groups.map(\.name) == whole.groups.map(\.name))
        let groupTicks = (
            merged: merged.groups.map { $0[.scheduled] }.reduce(0, +), whole: whole.groups.map { $0[.scheduled] }.reduce(0, +)
        )
        #expect(groupTicks.merged == groupTicks.whole)
        #expect(merged.latency?.count == whole.latency?.count)
        #expect(merged.lateness.count == whole.lateness.count)
        #expect(merged.durationSeconds == max(first.durationSeconds, second.durationSeconds))
        // The merged percentiles are those of the sum of the shards' raw histograms.
        var latency = try #require(first.histograms).latency.histogram()
        latency.merge(try #require(second.histograms).latency.histogram())
        #expect(merged.latency == Percentiles(latency))
        // The timelines, lined up by wall-clock time, add up to the merged totals.
        let timeline = try #require(merged.timeline)
        #expect(timeline.startedAt == min(try #require(first.timeline).startedAt, try #require(second.timeline).startedAt))
        #expect(timeline.points.reduce(0) { $0 + $1.published } == merged[.published])
        #expect(timeline.points.reduce(0) { $0 + $1.acknowledged } == merged[.acknowledged])
        #expect(timeline.points.reduce(UInt64(0)) { $0 + $1.lateness.histogram.count } == merged.lateness.count)

        // Standard output, too.
        let printed = try DevsimProcess.runToCompletion(
            args: ["report", "merge", directory.appendingPathComponent("s0.json").path, directory.appendingPathComponent("s1.json").path],
            timeout: 30)
        #expect(printed.status == 0)
        #expect(try JSONDecoder().decode(RunReport.self, from: Data(printed.stdout.utf8)) == merged)
    }

    @Test func unreadableReportsExit2NamingTheFile() throws {
        let directory = try RunFiles.folder()
        let garbage = directory.appendingPathComponent("garbage.json").path
        try "not json".write(toFile: garbage, atomically: true, encoding: .utf8)
        let missing = directory.appendingPathComponent("missing.json").path
        let notFound = try DevsimProcess.runToCompletion(args: ["report", "merge", missing], timeout: 30)
        #expect(notFound.status == 2)
        #expect(notFound.stderr.contains("cannot read '\(missing)'"), "\(notFound.stderr)")
        let bad = try DevsimProcess.runToCompletion(args: ["report", "merge", garbage], timeout: 30)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("'\(garbage)' is not a devsim JSON report"), "\(bad.stderr)")
        let usage = try DevsimProcess.runToCompletion(args: ["run", "x.yaml", "--shard", "5/5"], timeout: 30)
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("--shard: shard index must be from 0 to 4"), "\(usage.stderr)")
    }

    @Test func aShardWithoutDevicesExits0WithAnEmptyReport() throws {
        let directory = try RunFiles.folder()
        let file = directory.appendingPathComponent("tiny.yaml").path
        try """
        name: tiny
        devices:
          - name: one
            topic: "t/{id}"
            publish: 1/s
            payload: { fields: { seq: { counter: 0 } } }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        // One device: with 2 shards, one of them is empty whatever the hash says.
        let empty = Shard.bucket(of: "one-1", count: 2) == 0 ? "1" : "0"
        let report = directory.appendingPathComponent("r.json").path
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--port", "1", "--report", report], env: ["JOB_COMPLETION_INDEX": empty, "DEVSIM_SHARDS": "2"], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("has none of the fleet's 1 devices"), "\(result.stderr)")
        let written = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(written.shard == Shard(index: Int(empty)!, count: 2))
        #expect(written.outcome == "empty shard")
    }
}
