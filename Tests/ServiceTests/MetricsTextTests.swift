import Testing
@testable import Service
@testable import Report
@testable import Simulator

@Suite struct MetricsTextTests {
    private func live() -> Fleet.Live {
        var room = Totals()
        room.figures[.published] = 7
        room.figures[.inFlight] = 2
        room.connectionsUp = 3
        room.figures[.refused] = 5
        room.refusals.add(0x87, 4)
        room.refusals.add(0x97, 1)
        var latency = Histogram()
        for _ in 0..<4 { latency.record(3_000_000) }  // 3 ms
        latency.record(2_000_000_000)  // 2 s
        let result = RunResult(
            totals: room, connectionsUpAtEnd: 3, connections: 4, durationSeconds: 1, reason: .running, latency: latency,
            lateness: Histogram(), groups: [(name: "room \"A\"", totals: room)], connectionErrors: [:], allConnectedSeconds: nil)
        return Fleet.Live(result: result, stuckLoops: [])
    }

    @Test func figuresAreCountersOrGaugesLabelledByGroup() {
        let text = MetricsText.render(live(), shard: nil, version: "0.1.0", startTime: 1_800_000_000)
        #expect(text.contains("# TYPE devsim_published_total counter\ndevsim_published_total{group=\"room \\\"A\\\"\"} 7\n"))
        #expect(text.contains("# TYPE devsim_in_flight gauge\ndevsim_in_flight{group=\"room \\\"A\\\"\"} 2\n"))
        #expect(text.contains("devsim_skipped_offline_total{"))
        #expect(text.contains("devsim_connections_up{group=\"room \\\"A\\\"\"} 3\n") && text.contains("devsim_connections 4\n"))
        #expect(text.contains("devsim_build_info{version=\"0.1.0\"} 1\n"))
        #expect(text.contains("devsim_process_start_time_seconds 1800000000\n"))
    }

    @Test func histogramsAreCumulativeInSeconds() {
        let text = MetricsText.render(live(), shard: Shard(index: 1, count: 3), version: "v", startTime: 0)
        #expect(text.contains("devsim_ack_latency_seconds_bucket{shard=\"1/3\",le=\"0.002\"} 0\n"))
        #expect(text.contains("devsim_ack_latency_seconds_bucket{shard=\"1/3\",le=\"0.005\"} 4\n"))
        #expect(
            text.contains("devsim_ack_latency_seconds_bucket{shard=\"1/3\",le=\"2\"} 4\n"), "2 s falls in a bucket whose top is above 2 s")
        #expect(text.contains("devsim_ack_latency_seconds_bucket{shard=\"1/3\",le=\"5\"} 5\n"))
        #expect(text.contains("devsim_ack_latency_seconds_bucket{shard=\"1/3\",le=\"+Inf\"} 5\n"))
        #expect(text.contains("devsim_ack_latency_seconds_count{shard=\"1/3\"} 5\n"))
        let sum = text.split(separator: "\n").first { $0.hasPrefix("devsim_ack_latency_seconds_sum") }
        let value = sum.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        #expect(abs(value - 2.012) < 2.012 * 0.016, "\(sum ?? "")")
    }

    /// Issue 24, item 6: what the broker refused, by group and by reason.
    @Test func refusalsAreCountedByReason() {
        let text = MetricsText.render(live(), shard: nil, version: "v", startTime: 0)
        #expect(text.contains("devsim_refused_total{group=\"room \\\"A\\\"\"} 5\n"))
        #expect(text.contains("devsim_refusals_total{group=\"room \\\"A\\\"\",code=\"0x87\",reason=\"Not authorized\"} 4\n"))
        #expect(text.contains("devsim_refusals_total{group=\"room \\\"A\\\"\",code=\"0x97\",reason=\"Quota exceeded\"} 1\n"))
    }

    /// Issue 25, item 3: the stage under way, the capacity step and the rate they aim at, as
    /// the live page shows them; a run with neither has none of these series.
    @Test func theStageStepAndTargetAreGauges() {
        var live = live()
        #expect(!MetricsText.render(live, shard: nil, version: "v", startTime: 0).contains("devsim_stage"))
        live.position.stages = [
            RunPosition.Stage(stage: 2, count: 3, target: "x2", seconds: 1, plannedSeconds: 10),
            RunPosition.Stage(group: "door", stage: nil, count: 1, target: "5/s", seconds: 0, plannedSeconds: 0),
        ]
        live.position.step = RunPosition.Step(step: 4, phase: .measuring, multiplier: 3)
        live.position.targetPerSecond = 1234.5
        let text = MetricsText.render(live, shard: Shard(index: 1, count: 2), version: "v", startTime: 0)
        #expect(text.contains("# TYPE devsim_stage gauge\ndevsim_stage{shard=\"1/2\"} 2\ndevsim_stage{shard=\"1/2\",group=\"door\"} 0\n"))
        #expect(text.contains("# TYPE devsim_capacity_step gauge\ndevsim_capacity_step{shard=\"1/2\"} 4\n"))
        #expect(text.contains("# TYPE devsim_target_messages_per_second gauge\ndevsim_target_messages_per_second{shard=\"1/2\"} 1234.5\n"))
    }

    /// Issue 29, item 4: how long connecting took, the whole and each phase some connection had.
    @Test func connectTimingsAreHistogramsOfTheWholeAndOfEachPhaseThatHappened() {
        var live = live()
        let empty = MetricsText.render(live, shard: nil, version: "v", startTime: 0)
        #expect(empty.contains("# TYPE devsim_connect_seconds histogram\n") && empty.contains("devsim_connect_seconds_count 0\n"))
        #expect(!empty.contains("devsim_connect_phase_seconds"))
        live.result.connectTimings.record(
            ConnectAttempt(started: 0, tcpConnected: 100_000, usesTLS: true, tlsFinished: 3_000_000, connack: 4_000_000))
        let text = MetricsText.render(live, shard: nil, version: "v", startTime: 0)
        #expect(text.contains("devsim_connect_seconds_bucket{le=\"0.005\"} 1\n") && text.contains("devsim_connect_seconds_count 1\n"))
        #expect(text.contains("devsim_connect_phase_seconds_bucket{phase=\"tcp_connect\",le=\"0.0005\"} 1\n"))
        #expect(text.contains("devsim_connect_phase_seconds_bucket{phase=\"tls_handshake\",le=\"0.002\"} 0\n"))
        #expect(text.contains("devsim_connect_phase_seconds_count{phase=\"connack\"} 1\n"))
        #expect(!text.contains("ws_upgrade\""))
    }

    @Test func namesAreSnakeCase() {
        #expect(MetricsText.snakeCase("skippedOffline") == "skipped_offline")
        #expect(MetricsText.snakeCase("ackTimeouts") == "ack_timeouts")
    }
}
