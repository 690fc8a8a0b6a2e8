import Foundation
import Reactor
import Scenario
import Signals
import Simulator
import Testing
import TestSupport

/// Issue 30, item 2: the replay cursor, pure: each message's deadline from the start, the
/// speed and the loop.
@Suite struct ReplayCursorTests {
    @Test func eachMessageIsDueAtItsRecordedTimeOverTheSpeed() {
        var cursor = ReplayCursor(times: [0.5, 1, 1, 3], period: 4, speed: 2, loops: false, start: 1_000)
        var deadlines: [UInt64] = []
        while !cursor.isFinished {
            deadlines.append(cursor.deadline)
            cursor.advance()
        }
        let expected: [UInt64] = [250_001_000, 500_001_000, 500_001_000, 1_500_001_000]
        #expect(deadlines == expected)
    }

    @Test func aLoopStartsAgainAPeriodOnWithoutDrift() {
        var cursor = ReplayCursor(times: [0, 1], period: 1.5, speed: 1, loops: true, start: 0)
        var deadlines: [UInt64] = []
        for _ in 0..<6 {
            deadlines.append(cursor.deadline)
            cursor.advance()
        }
        let expected: [UInt64] = [0, 1_000_000_000, 1_500_000_000, 2_500_000_000, 3_000_000_000, 4_000_000_000]
        #expect(deadlines == expected)
        #expect(!cursor.isFinished && cursor.lap == 3 && cursor.index == 0)
        // A day of laps later, the deadline is computed, not added up.
        for _ in 0..<(2 * 57_600) { cursor.advance() }
        #expect(cursor.deadline == UInt64((Double(cursor.lap) * 1.5) * 1e9))
    }

    @Test func theTypicalIntervalIsTheMedianGapOfATopic() {
        // Topic 0 every 0.25 s, topic 1 every 0.5 s, topic 2 every 1 s, over 2 s.
        var times: [Double] = []
        var topics: [Int] = []
        for (topic, gap) in [(0, 0.25), (1, 0.5), (2, 1.0)] {
            for step in stride(from: 0, to: 2, by: gap) {
                times.append(step)
                topics.append(topic)
            }
        }
        #expect(ReplayCursor.typicalInterval(times: times, topics: topics) == 0.25)
        #expect(ReplayCursor.typicalInterval(times: [0, 2, 5], topics: [0, 1, 2]) == 3, "no topic repeats: any two messages")
        #expect(ReplayCursor.typicalInterval(times: [1, 1], topics: [0, 0]) == 1, "one instant: a second")
    }
}

/// Issue 30, item 2: timestamps found in recorded payloads and written as of now, in their form.
@Suite struct TimestampFormTests {
    func form(_ text: String) -> TimestampForm? { TimestampForm.of(Array(text.utf8)[...]) }

    func written(_ form: TimestampForm, _ wallClock: Double) -> String {
        var buffer = PayloadBuffer()
        form.write(wallClock, into: &buffer)
        return buffer.text
    }

    @Test func timesAreTellTheirFormAndOthersAreNot() {
        #expect(form("\"2026-12-04T05:30:00.123Z\"") == .iso8601(fractionDigits: 3))
        #expect(form("\"2026-12-04T05:30:00Z\"") == .iso8601(fractionDigits: 0))
        #expect(form("1796361578") == .seconds(fractionDigits: 0))
        #expect(form("1796361578.25") == .seconds(fractionDigits: 2))
        #expect(form("1796361578123") == .milliseconds(fractionDigits: 0))
        for other in [
            "\"2000-12-04T05:30:00Z\"", "\"2026-12-04 05:30:00Z\"", "\"2026-12-04T05:30:00+01:00\"", "42", "21.5", "-1796361578",
            "1.796e9", "true", "\"room-1\"", "5000000000",
        ] {
            #expect(form(other) == nil, "\(other)")
        }
    }

    @Test func theTimeIsWrittenInTheRecordedForm() {
        let now = 1_796_361_578.4567  // 2026-12-04T05:19:38.4567Z
        #expect(written(.iso8601(fractionDigits: 3), now) == "\"2026-12-04T05:19:38.456Z\"")
        #expect(written(.iso8601(fractionDigits: 0), now) == "\"2026-12-04T05:19:38Z\"")
        #expect(written(.seconds(fractionDigits: 0), now) == "1796361578")
        #expect(written(.seconds(fractionDigits: 2), now) == "1796361578.45")
        #expect(written(.milliseconds(fractionDigits: 0), now) == "1796361578456")
        #expect(written(.iso8601(fractionDigits: 12), now).hasPrefix("\"2026-12-04T05:19:38.456") == true)
        #expect(written(.iso8601(fractionDigits: 12), now).count == "\"2026-12-04T05:19:38.000000000000Z\"".count)
    }
}

/// Issue 30, item 2: what a replaying device sends, made at plan time.
@Suite struct ReplayPlanTests {
    static let messages = [
        RecordedMessage(time: 0, topic: "site/s1/data", payload: Array(#"{"id":"s1","ts":"2026-12-04T05:30:00.100Z","v":1}"#.utf8)),
        RecordedMessage(time: 0.5, topic: "site/s1/status", retain: true, payload: Array("s1 online".utf8)),
        RecordedMessage(
            time: 1, topic: "site/s1/data", payload: Array(#"{"id":"s1","ts":"2026-12-04T05:30:01.100Z","v":1796361578000}"#.utf8)),
    ]

    func written(_ plan: ReplayPlan, _ index: Int, _ wallClock: Double = 0) -> String {
        var buffer = PayloadBuffer()
        plan.write(index, wallClock: wallClock, into: &buffer)
        return buffer.text
    }

    @Test func theRecordedIDIsEachDevicesOwnInTopicsAndPayloads() {
        let plan = ReplayPlan(source: RecordingSource(file: "r.jsonl", recordedID: "s1", messages: Self.messages), id: "room-7")
        #expect(plan.topics == ["site/room-7/data", "site/room-7/status"] && plan.retains == [false, true])
        #expect(plan.messages.map(\.slot) == [0, 1, 0])
        #expect(written(plan, 0) == #"{"id":"room-7","ts":"2026-12-04T05:30:00.100Z","v":1}"#)
        #expect(written(plan, 1) == "room-7 online")
        #expect(plan.times == [0, 0.5, 1] && plan.typicalInterval == 1 && plan.period == 2)
        let asRecorded = ReplayPlan(source: RecordingSource(file: "r.jsonl", messages: Self.messages), id: "room-7")
        #expect(asRecorded.topics == ["site/s1/data", "site/s1/status"] && written(asRecorded, 0).contains("\"s1\""))
    }

    /// Found replaying a live recording whose devices were `a`, `b`, `c`: `src/a/data` became
    /// `src/a-1/da-1ta-1`. Only a whole id is the id, not one inside a longer name.
    @Test func onlyAWholeRecordedIDIsReplaced() {
        let messages = [
            RecordedMessage(time: 0, topic: "src/a/data", payload: Array(#"{"device":"a","label":"a area","data":"abc"}"#.utf8)),
            RecordedMessage(time: 1, topic: "room-1/room-10", payload: Array("room-1 next to room-10 and room-1_b".utf8)),
        ]
        let short = ReplayPlan(source: RecordingSource(file: "r.jsonl", recordedID: "a", messages: [messages[0]]), id: "a-7")
        #expect(short.topics == ["src/a-7/data"])
        #expect(written(short, 0) == #"{"device":"a-7","label":"a-7 area","data":"abc"}"#)
        let prefix = ReplayPlan(source: RecordingSource(file: "r.jsonl", recordedID: "room-1", messages: [messages[1]]), id: "x")
        #expect(prefix.topics == ["x/room-10"])
        #expect(written(prefix, 0) == "x next to room-10 and room-1_b")
    }

    @Test func timestampsNowRewritesEveryTimeOfATopicInItsForm() {
        let plan = ReplayPlan(source: RecordingSource(file: "r.jsonl", timestamps: .now, messages: Self.messages), id: nil)
        let now = 1_796_361_578.4567
        #expect(written(plan, 0, now) == #"{"id":"s1","ts":"2026-12-04T05:19:38.456Z","v":1}"#)
        #expect(written(plan, 1, now) == "s1 online", "no JSON, no time")
        // `v` is a number in one message of the topic and holds a time in another: not a time member.
        #expect(written(plan, 2, now) == #"{"id":"s1","ts":"2026-12-04T05:19:38.456Z","v":1796361578000}"#)
        let nested = ReplayPlan(
            source: RecordingSource(
                file: "r.jsonl", timestamps: .now,
                messages: [RecordedMessage(time: 0, topic: "t", payload: Array(#"{"m":{"at":1764826200000},"l":[1764826200.5]}"#.utf8))]),
            id: nil)
        #expect(written(nested, 0, now) == #"{"m":{"at":1796361578456},"l":[1796361578.4]}"#)
    }

    @Test func copiesStartSpreadOverTheTypicalInterval() throws {
        let folder = try RunFiles.folder(with: [
            "rec.jsonl": Self.messages.map(\.jsonLine).joined(separator: "\n") + "\n"
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let fleet = try plan(
            yaml: "devices:\n  - name: room\n    count: 4\n    recording: { file: rec.jsonl, recordedID: s1, speed: 2x }\n",
            file: folder.appendingPathComponent("s.yaml").path)
        let devices = fleet.connections.flatMap(\.devices)
        #expect(devices.map(\.startDelay) == [0, 0.125, 0.25, 0.375], "over 1 s of recording at 2x")
        #expect(devices.map(\.topic) == ["site/room-1/data", "site/room-2/data", "site/room-3/data", "site/room-4/data"])
        #expect(fleet.replayedMessages == 12 && fleet.replayWarnings.isEmpty)
        let copies = try plan(
            yaml: "devices:\n  - name: room\n    count: 2\n    recording: { file: rec.jsonl, loop: true }\n",
            file: folder.appendingPathComponent("s.yaml").path)
        #expect(copies.replayedMessages == nil, "a loop never ends by itself")
        #expect(copies.replayWarnings.count == 1 && copies.replayWarnings[0].contains("without 'recordedID'"))
    }
}
