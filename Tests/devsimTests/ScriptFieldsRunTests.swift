import Foundation
import Testing
import TestSupport

/// Issue 40, item 2: what a script's `tick` leaves in `device.fields` and how the payload keeps
/// it: formulas hold over the values it set, a failed call sends the last good values, and a
/// call for a state (at a CONNACK) sends what it returned. Dry runs, which play the device as a
/// run does (`DryRunMatchesRunTests`).
@Suite(.tags(.integration), .notUnitOnly) struct ScriptFieldsRunTests {
    /// The messages a dry run of one device running `script` prints for `messages` ticks, as
    /// objects; the group's fields are `fields`, with `extra` lines in the group.
    static func dryRun(script: String, fields: String, extra: String = "", messages: Int) throws -> [[String: Any]] {
        let folder = try RunFiles.folder(with: [
            "device.lua": script,
            "scenario.yaml": """
            devices:
              - name: probe
                topic: "probe/{id}"
                publish: 1/s
                script: device.lua
            \(extra)
                payload:
                  style: flat
                  fields:
            \(fields)
            """,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try DevsimProcess.runToCompletion(
            args: ["run", folder.appendingPathComponent("scenario.yaml").path, "--dry-run", "--seed", "3", "--messages", String(messages)],
            timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        return try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    static func payload(_ line: [String: Any]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(((line["payload"] as? String) ?? "").utf8)) as? [String: Any]) ?? [:]
    }

    @Test func aFormulaHoldsOverTheValuesTheScriptSet() throws {
        let lines = try Self.dryRun(
            script: """
                function tick(device)
                  device.state.n = (device.state.n or 0) + 1
                  device.fields.temp_c = device.state.n * 10
                end
                """,
            fields: """
                        temp_c: { constant: 0 }
                        temp_f: { expr: "temp_c * 1.8 + 32", decimals: 1 }
                """, messages: 3)
        #expect(lines.map { Self.payload($0)["temp_c"] as? Double } == [10, 20, 30])
        #expect(lines.map { Self.payload($0)["temp_f"] as? Double } == [50, 68, 86])
    }

    @Test func aFailedTickSendsTheLastGoodValues() throws {
        let lines = try Self.dryRun(
            script: """
                function tick(device)
                  device.state.n = (device.state.n or 0) + 1
                  device.fields.temp = device.state.n * 10
                  if device.state.n == 3 then error("a sensor the script cannot read") end
                end
                """,
            fields: """
                        temp: { constant: 0 }
                        seq: { counter: 1 }
                """, messages: 4)
        #expect(lines.map { Self.payload($0)["temp"] as? Double } == [10, 20, 20, 40])
        #expect(lines.map { Self.payload($0)["seq"] as? Int } == [1, 2, 3, 4], "the fields it did not set are the generators'")
    }

    @Test func whatATickReturnsWhenItsStateIsSaidGoesOut() throws {
        // A group that takes commands says its state at the CONNACK where no tick falls there (jitter
        // puts the first later); the script's tick makes it.
        let lines = try Self.dryRun(
            script: """
                function tick(device)
                  device.state.n = (device.state.n or 0) + 1
                  return { { topic = "probe/events", payload = "call " .. device.state.n } }
                end
                """,
            fields: """
                        mode: { constant: "auto", command: set }
                """, extra: "    commands: { topic: \"probe/{id}/set\" }\n    jitter: auto", messages: 3)
        let events = lines.filter { $0["topic"] as? String == "probe/events" }.compactMap { $0["payload"] as? String }
        #expect(events.first == "call 1", "the call that made the state at the CONNACK")
        #expect(events == (1...events.count).map { "call \($0)" })
        #expect(lines.contains { $0["topic"] as? String == "probe/probe-1" && $0["state"] as? Bool == true })
    }
}
