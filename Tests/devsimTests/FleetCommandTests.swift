import Foundation
import Testing
import TestSupport
@testable import devsim

@Suite struct SampleArgumentTests {
    @Test func countSeedAndFiles() throws {
        #expect(
            try ArgumentParser.parse(["sample", "a.yaml", "b.yaml"], environment: [:])
                == .sample(SampleOptions(scenarios: ["a.yaml", "b.yaml"], count: 3, seed: nil)))
        #expect(
            try ArgumentParser.parse(["sample", "--count", "5", "--seed=9", "a.yaml"], environment: [:])
                == .sample(SampleOptions(scenarios: ["a.yaml"], count: 5, seed: 9)))
        #expect(try ArgumentParser.parse(["sample", "--help"], environment: [:]) == .help(topic: "sample"))
    }

    @Test func mistakesAreUsageErrors() {
        #expect(throws: UsageError("--count: expected a whole number from 1 to 10000, found '0'; --for DURATION covers a longer stretch")) {
            try ArgumentParser.parse(["sample", "--count", "0", "a.yaml"], environment: [:])
        }
        #expect(throws: UsageError("sample: unknown option '--cout'; did you mean --count?")) {
            try ArgumentParser.parse(["sample", "--cout", "2", "a.yaml"], environment: [:])
        }
        #expect(throws: UsageError("sample: name at least one scenario file")) {
            try ArgumentParser.parse(["sample", "--seed", "1"], environment: [:])
        }
        #expect(throws: UsageError("--seed needs a value (N)")) {
            try ArgumentParser.parse(["sample", "a.yaml", "--seed"], environment: [:])
        }
        #expect(throws: UsageError("unknown command 'smaple'; did you mean 'sample'?")) {
            try ArgumentParser.parse(["smaple", "a.yaml"], environment: [:])
        }
    }

    /// Issue 25, item 8: `--for` covers a stretch of virtual time, with no count unless one is
    /// given beside it; a bad value names the flag.
    @Test func forCoversADuration() throws {
        #expect(
            try ArgumentParser.parse(["sample", "--for", "24h", "a.yaml"], environment: [:])
                == .sample(SampleOptions(scenarios: ["a.yaml"], count: nil, seed: nil, span: .seconds(86_400))))
        #expect(
            try ArgumentParser.parse(["sample", "--for=90m", "--count", "5", "a.yaml"], environment: [:])
                == .sample(SampleOptions(scenarios: ["a.yaml"], count: 5, seed: nil, span: .seconds(5400))))
        #expect(throws: UsageError("--for: expected a duration such as 250ms, 30s, 5m, 1.5h or 2d above zero, found 'a day'")) {
            try ArgumentParser.parse(["sample", "--for", "a day", "a.yaml"], environment: [:])
        }
        #expect(throws: UsageError("--for needs a value (DURATION)")) {
            try ArgumentParser.parse(["sample", "a.yaml", "--for"], environment: [:])
        }
        #expect(Help.text(topic: "sample").contains("--for DURATION"))
    }

    @Test func helpListsSample() {
        #expect(Help.general.contains("devsim sample"))
        #expect(Help.text(topic: "sample").contains("--count N"))
    }

    @Test func sampleRates() {
        #expect(SampleCommand.rate(10) == "10/s")
        #expect(SampleCommand.rate(2.5) == "2.5/s")
        #expect(SampleCommand.rate(0.2) == "1 every 5s")
        #expect(SampleCommand.rate(1.0 / 60) == "1 every 60s")
    }
}

/// `sample`, `validate` and `run` on fleets, run as a user would.
@Suite(.tags(.integration), .notUnitOnly) struct FleetProcessTests {
    private static let site = """
        name: site
        defaults:
          publish: 2/s
          payload:
            style: flat
            fields:
              seq: { counter: 0 }
        include: [parts/rooms.yaml]
        devices:
          - name: meter
            count: 4
            topic: "meters/{id}"
            publish: 1/10s
            qos: 1
        """

    private static let rooms = """
        devices:
          - name: room
            count: 3
            topic: "rooms/{id}"
            jitter: auto
        """

    @Test func sampleShowsEveryGroupOfEveryFile() throws {
        let dir = try RunFiles.folder(with: ["site.yaml": Self.site, "parts/rooms.yaml": Self.rooms])
        let site = dir.appendingPathComponent("site.yaml").path
        let result = try DevsimProcess.runToCompletion(args: ["sample", site, "--seed", "4", "--count", "2"], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "seed 4")
        #expect(lines.contains { $0.hasPrefix("room  \(dir.path)/parts/rooms.yaml:2:5  3 devices, 2/s, qos 0") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("meter  \(site):10:5  4 devices, 1 every 10s, qos 1") }, "\(result.stdout)")
        #expect(lines.contains("  room-1 → rooms/room-1"))
        #expect(lines.contains("  meter-1 → meters/meter-1"))
        let ticks = lines.filter { $0.hasPrefix("    +") }
        #expect(ticks.count == 4)
        #expect(ticks.filter { $0.hasSuffix("{\"seq\":0}") }.count == 2)
        // Each device's ticks are one interval apart from its seeded delay: `+00:00:SS.mmm`.
        let seconds = ticks.compactMap { Double($0.dropFirst(11).prefix { $0 != " " }) }
        #expect(seconds.count == 4 && abs(seconds[1] - seconds[0] - 0.5) < 1e-9 && abs(seconds[3] - seconds[2] - 10) < 1e-9, "\(ticks)")

        let again = try DevsimProcess.runToCompletion(args: ["sample", site, "--seed", "4", "--count", "2"], timeout: 30)
        #expect(again.stdout == result.stdout, "one seed, one sample")
        let random = try DevsimProcess.runToCompletion(args: ["sample", site], timeout: 30)
        #expect(random.stdout.hasPrefix("seed "))
        #expect(random.stdout.split(separator: "\n").first?.contains("shows these values again") == true)
    }

    /// Issue 25, item 8: a day of a device that publishes once a minute, every tick of it,
    /// timed as a clock reads; and of a 1/s device, past the 10,000 a count allows.
    @Test func sampleForADayShowsEveryTickOfIt() throws {
        let dir = try RunFiles.folder(with: [
            "day.yaml": """
            devices:
              - name: door
                topic: door
                publish: 1/60s
                payload: { style: flat, fields: { n: { counter: 0 } } }
              - name: meter
                topic: meter
                publish: 1/s
                payload: { style: flat, fields: { n: { counter: 0 } } }
            """
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("day.yaml").path
        let result = try DevsimProcess.runToCompletion(args: ["sample", file, "--seed", "1", "--for", "24h"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let door = lines.drop { !$0.hasPrefix("  door-1") }.dropFirst().prefix { $0.hasPrefix("    +") }
        #expect(door.count == 24 * 60)
        #expect(door.first == "    +00:00:00.000  {\"n\":0}")
        #expect(door.dropFirst(62).first == "    +01:02:00.000  {\"n\":62}")
        #expect(door.last == "    +23:59:00.000  {\"n\":1439}")
        let meter = lines.drop { !$0.hasPrefix("  meter-1") }.dropFirst().prefix { $0.hasPrefix("    +") }
        #expect(meter.count == 86_400)
        #expect(meter.last == "    +23:59:59.000  {\"n\":86399}")
        let bounded = try DevsimProcess.runToCompletion(args: ["sample", file, "--seed", "1", "--for", "24h", "--count", "2"], timeout: 30)
        #expect(bounded.stdout.split(separator: "\n").filter { $0.hasPrefix("    +") }.count == 4, "the count bounds the span")
    }

    /// Issue 25, item 8: every dry-run line says when it would be published, as the clock of
    /// the run reads then, so a day of lines can be read and filtered by time.
    @Test func dryRunLinesCarryTheirVirtualTime() throws {
        let dir = try RunFiles.folder(with: [
            "day.yaml": """
            devices:
              - name: door
                topic: door
                publish: 1/20m
                payload: { style: flat, fields: { n: { counter: 0 } } }
            """
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try DevsimProcess.runToCompletion(
            args: ["run", dir.appendingPathComponent("day.yaml").path, "--dry-run", "--duration", "24h", "--seed", "1"], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.count == 72)
        #expect(objects.first?["at"] as? String == "+00:00:00.000")
        #expect(objects[4]["at"] as? String == "+01:20:00.000" && objects[4]["payload"] as? String == "{\"n\":4}")
        #expect(objects.last?["at"] as? String == "+23:40:00.000")
        #expect(result.stdout.hasPrefix("{\"at\":\"+00:00:00.000\",\"topic\":\"door\","), "the time first, where the eye starts")
    }

    @Test func sampleNumbersTheTicksOfPublishMax() throws {
        let dir = try RunFiles.folder(with: [
            "max.yaml": """
            devices:
              - name: flood
                topic: flood
                publish: max
                payload: { style: flat, fields: { n: { counter: 0 } } }
            """
        ])
        let result = try DevsimProcess.runToCompletion(
            args: ["sample", dir.appendingPathComponent("max.yaml").path, "--seed", "1", "--count", "3"], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("flood  \(dir.path)/max.yaml:2:5  1 device, as fast as possible, qos 0"), "\(result.stdout)")
        #expect(result.stdout.contains("    #1  {\"n\":0}\n    #2  {\"n\":1}\n    #3  {\"n\":2}\n"), "\(result.stdout)")
    }

    @Test func sampleOfAnInvalidScenarioExits2WithEveryProblem() throws {
        let dir = try RunFiles.folder(with: [
            "bad.yaml": Self.site.replacingOccurrences(of: "qos: 1", with: "qos: 7"),
            "parts/rooms.yaml": Self.rooms.replacingOccurrences(of: "jitter: auto", with: "jitter: later"),
        ])
        let bad = dir.appendingPathComponent("bad.yaml").path
        let result = try DevsimProcess.runToCompletion(args: ["sample", bad], timeout: 30)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("\(bad):14:10: expected 0, 1 or 2 for 'qos', found 7"), "\(result.stderr)")
        #expect(result.stderr.contains("\(dir.path)/parts/rooms.yaml:5:13: expected auto"), "\(result.stderr)")
    }

    @Test func twoFilesWithOneClientIDAreRefusedNamingBoth() throws {
        let dir = try RunFiles.folder(with: [
            "a.yaml": Self.rooms + "\n    publish: 1/s\n    payload: { fields: { v: { counter: 0 } } }\n",
            "b.yaml": Self.rooms + "\n    publish: 5/s\n    payload: { fields: { v: { counter: 0 } } }\n",
        ])
        let a = dir.appendingPathComponent("a.yaml").path
        let b = dir.appendingPathComponent("b.yaml").path
        // Each file is valid on its own...
        let validate = try DevsimProcess.runToCompletion(args: ["validate", a, b], timeout: 30)
        #expect(validate.status == 0, "\(validate.stderr)")
        // ...but run together their clients would knock each other off the broker.
        for command in [["run", a, b, "--dry-run", "--messages", "1"], ["sample", a, b]] {
            let result = try DevsimProcess.runToCompletion(args: command, timeout: 30)
            #expect(result.status == 2, "\(command)")
            #expect(
                result.stderr.contains(
                    "\(b):2:5: client id 'room-1' of device group 'room' is also used by device group 'room' at \(a):2:5"),
                "\(result.stderr)")
        }
    }

    @Test func validateRefusesOneClientIDForAWholeGroup() throws {
        let dir = try RunFiles.folder(with: [
            "one.yaml": Self.rooms + "\n    clientId: sensor\n    publish: 1/s\n    payload: { fields: { v: { counter: 0 } } }\n"
        ])
        let file = dir.appendingPathComponent("one.yaml").path
        let result = try DevsimProcess.runToCompletion(args: ["validate", file], timeout: 30)
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("\(file):2:5: client id 'sensor' is used by more than one device of device group 'room'"),
            "\(result.stderr)")
    }

    @Test func validateFollowsIncludesAndPointsAtTheEntry() throws {
        let dir = try RunFiles.folder(with: ["main.yaml": "include:\n  - missing.yaml\n  - main.yaml\n" + Self.rooms])
        let main = dir.appendingPathComponent("main.yaml").path
        let result = try DevsimProcess.runToCompletion(args: ["validate", main], timeout: 30)
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(main):2:5: cannot include 'missing.yaml': no such file"), "\(result.stderr)")
        #expect(result.stderr.contains("\(main):3:5: include cycle: \(main) → \(dir.path)/main.yaml"), "\(result.stderr)")
    }
}
