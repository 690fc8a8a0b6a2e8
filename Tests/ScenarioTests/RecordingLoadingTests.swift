import Foundation
import Testing
import TestSupport

@testable import Scenario

/// Issue 30, items 2 and 4: a device group's `recording:` as it loads, and what it refuses: a bad
/// recording at the recording's own file, line and column, the rest at the scenario's key.
@Suite struct RecordingLoadingTests {
    static let recording = """
        # devsim recording
        {"t":0,"topic":"site/s1/data","payload":"{\\"id\\":\\"s1\\",\\"v\\":1}"}
        {"t":0.5,"topic":"site/s2/data","retain":true,"payload":"{\\"id\\":\\"s2\\",\\"v\\":2}"}
        {"t":1,"topic":"site/s1/data","payload":"{\\"id\\":\\"s1\\",\\"v\\":3}"}

        """

    /// `group` as the one device group of a scenario beside `recording` (rec.jsonl); the
    /// scenario's path and what loading it said.
    func load(_ group: String, recording: String = recording) throws -> (path: String, result: Result<Scenario, ScenarioError>) {
        let folder = try RunFiles.folder(with: ["s.yaml": "devices:\n" + group, "rec.jsonl": recording])
        let path = folder.appendingPathComponent("s.yaml").path
        return (path, Result { () throws(ScenarioError) in try ScenarioLoader.load(file: path, environment: [:]) })
    }

    /// What loading `group` said, each problem with its place, the folder left out.
    func problems(_ group: String, recording: String = recording) throws -> [String] {
        let (path, result) = try load(group, recording: recording)
        defer { RunFiles.removeFolder(of: path) }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path + "/"
        switch result {
        case .success: return ["loaded without errors"]
        case .failure(let error): return error.diagnostics.map { $0.description.replacingOccurrences(of: folder, with: "") }
        }
    }

    @Test func aRecordingLoadsWithItsKeys() throws {
        let (path, result) = try load(
            """
              - name: room
                count: 3
                id: "room-{index}"
                qos: 1
                recording:
                  file: rec.jsonl
                  topics: [site/s1/#]
                  recordedID: s1
                  speed: 0.5x
                  loop: true
                  timestamps: now

            """)
        defer { RunFiles.removeFolder(of: path) }
        let group = try #require(try result.get().groups.first)
        let recording = try #require(group.recording)
        #expect(recording.file.hasSuffix("/rec.jsonl") && recording.topics == ["site/s1/#"] && recording.recordedID == "s1")
        #expect(recording.speed == 0.5 && recording.loop && recording.timestamps == .now)
        #expect(recording.messages.map(\.time) == [0, 1], "the messages the filter selects")
        #expect(group.topic.source == "site/{id}/data" && group.count == 3 && group.qos == .atLeastOnce)
        // The defaults: the whole recording, as recorded, once.
        let (plain, plainResult) = try load("  - name: all\n    recording: { file: rec.jsonl }\n")
        defer { RunFiles.removeFolder(of: plain) }
        let all = try #require(try plainResult.get().groups.first?.recording)
        #expect(all.messages.count == 3 && all.speed == 1 && !all.loop && all.timestamps == .keep && all.recordedID == nil)
    }

    @Test func aBadRecordingLineIsReportedAtItsFileLineAndColumn() throws {
        let bad = Self.recording.replacingOccurrences(of: "\"t\":0.5,", with: "\"t\":\"soon\",")
        #expect(
            try problems("  - name: room\n    recording: { file: rec.jsonl }\n", recording: bad) == [
                "rec.jsonl:3:2: 't' is the seconds from the start of the recording, a number 0 or more"
            ])
        #expect(
            try problems("  - name: room\n    recording: { file: missing.jsonl }\n") == [
                "s.yaml:3:24: cannot read the recording 'missing.jsonl': no such file"
            ])
    }

    @Test func aFilterThatSelectsNothingNamesTheRecordingsTopics() throws {
        #expect(
            try problems("  - name: room\n    recording:\n      file: rec.jsonl\n      topics: site/s3/data\n") == [
                "s.yaml:5:15: 'topics' filter 'site/s3/data' selects no message of rec.jsonl; did you mean 'site/s1/data'? "
                    + "(its topics: site/s1/data, site/s2/data)"
            ])
        #expect(
            try problems("  - name: room\n    recording:\n      file: rec.jsonl\n      topics: [site/s1/data, other/#]\n") == [
                "s.yaml:5:15: 'topics' filter 'other/#' selects no message of rec.jsonl (its topics: site/s1/data, site/s2/data)"
            ])
        #expect(
            try problems("  - name: room\n    recording:\n      file: rec.jsonl\n      topics: site/#/x\n") == [
                "s.yaml:5:15: 'site/#/x' in 'topics' is no topic filter: '#' matches the rest of a topic, so it must be the last level: 'site/#/x'"
            ])
    }

    @Test func keysARecordingSaysItselfAreRefusedAtTheKey() throws {
        #expect(
            try problems(
                """
                  - name: room
                    topic: t
                    publish: 1/s
                    payload: { fields: { n: { counter: 0 } } }
                    recording: { file: rec.jsonl }

                """) == [
                    "s.yaml:3:12: device group 'room' replays a recording, so it takes no 'topic': the topics are the recording's "
                        + "(recordedID rewrites the device's id in them)",
                    "s.yaml:4:14: device group 'room' replays a recording, so it takes no 'publish': the timing is the recording's "
                        + "(speed sets its pace)",
                    "s.yaml:5:14: device group 'room' replays a recording, so it takes no 'payload': the payloads are the recording's, "
                        + "their size too",
                ])
        // What `defaults` gives is for the groups that take it.
        #expect(
            try problems(
                """
                  - name: room
                    recording: { file: rec.jsonl }
                defaults:
                  topic: t
                  publish: 1/s
                  payload: { fields: { n: { counter: 0 } } }

                """) == ["loaded without errors"])
        // And a recording from `defaults` is every group's that does not say otherwise.
        #expect(try problems("  - name: room\n  - name: hall\ndefaults:\n  recording: { file: rec.jsonl }\n") == ["loaded without errors"])
    }

    @Test func aBadSpeedTimestampsOrKeyIsRefusedWithAHint() throws {
        for speed in ["0x", "fast", "-2x", "0"] {
            #expect(
                try problems("  - name: room\n    recording: { file: rec.jsonl, speed: \(speed) }\n") == [
                    "s.yaml:3:42: expected a speed above zero such as 2x (twice as fast), 1x or 0.5x (half) for 'speed', found '\(speed)'"
                ])
        }
        #expect(
            try problems("  - name: room\n    recording: { file: rec.jsonl, timestamps: today }\n") == [
                "s.yaml:3:47: expected keep or now for 'timestamps', found 'today'"
            ])
        #expect(
            try problems("  - name: room\n    recording: { file: rec.jsonl, recordID: s1 }\n") == [
                "s.yaml:3:35: unknown key 'recordID' in 'recording'; did you mean 'recordedID'?"
            ])
        #expect(
            try problems("  - name: room\n    recording: { speed: 2x }\n") == [
                "s.yaml:3:16: missing 'file' in 'recording' (the recording to replay, such as recording.jsonl)"
            ])
    }

    @Test func aLoadThatReadsNoFilesRefusesTheRecording() {
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.loadIsolated(
                bytes: Array("devices:\n  - name: r\n    recording: { file: rec.jsonl }\n".utf8), file: "fuzz.yaml", environment: [:])
        }
    }
}
