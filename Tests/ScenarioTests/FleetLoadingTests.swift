import MQTT
import Testing
@testable import Scenario
import Signals

/// Loads `files[main]` with the test generators, reading included files from `files` alone.
private func loadFleet(_ main: String, _ files: [String: String], environment: [String: String] = [:]) throws(ScenarioError) -> Scenario {
    try ScenarioLoader.load(
        bytes: Array(files[main, default: ""].utf8), file: main, environment: environment,
        generators: .test
    ) { path in
        guard let text = files[path] else { return .failure(LoadSession.FileProblem(reason: "no such file")) }
        return .success(Array(text.utf8))
    }
}

private func fleetProblems(_ main: String, _ files: [String: String]) -> [String] {
    do {
        _ = try loadFleet(main, files)
        return ["loaded without errors"]
    } catch {
        return error.diagnostics.map(\.description)
    }
}

@Suite struct DefaultsTests {
    @Test func defaultsFillWhatAGroupLeavesOutAndAGroupWins() throws {
        let scenario = try load(
            """
            defaults:
              topic: "site/{id}"
              publish: 2/s
              qos: 1
              jitter: auto
              payload:
                fields:
                  X: { accelerometer: x }
            devices:
              - name: a
                count: 3
              - name: b
                publish: 10/s
                qos: 0
                payload:
                  style: flat
                  fields:
                    Y: { accelerometer: y }
            """)
        let a = try #require(scenario.groups.first)
        let b = try #require(scenario.groups.last)
        #expect(a.topic == Template("site/{id}"))
        #expect(a.publish == .every(seconds: 0.5))
        #expect(a.qos == .atLeastOnce)
        #expect(a.count == 3)
        #expect(a.jitter == .auto)
        #expect(a.payload.fields.map(\.name) == ["X"])
        #expect(b.topic == Template("site/{id}"))
        #expect(b.publish == .every(seconds: 0.1))
        #expect(b.qos == .atMostOnce)
        #expect(b.count == 1)
        // A payload is taken whole: the group's replaces the default one, fields and all.
        #expect(b.payload.style == .flat)
        #expect(b.payload.fields.map(\.name) == ["Y"])
    }

    @Test func anExplicitNullTakesTheDefault() throws {
        let scenario = try load(
            """
            defaults: { topic: d, publish: 1/s, payload: { fields: { X: { accelerometer: x } } } }
            devices:
              - name: a
                topic: ~
            """)
        #expect(scenario.groups.first?.topic == Template("d"))
    }

    @Test func defaultsAreCheckedLikeAGroupAndEachProblemIsSaidOnce() {
        let text = """
            defaults:
              name: x
              pubish: 1/s
              qos: 5
              topic: t
              payload: { fields: { X: { accelerometer: x } } }
            devices:
              - name: a
                publish: 1/s
              - name: b
                publish: 1/s
            """
        #expect(
            problems(text) == [
                "test.yaml:2:3: 'name' cannot be a default: each device group has a name of its own",
                "test.yaml:3:3: unknown key 'pubish' in 'defaults'; did you mean 'publish'?",
                "test.yaml:4:8: expected 0, 1 or 2 for 'qos', found 5",
            ])
    }

    @Test func aGroupStillMissingARequiredKeyIsTold() {
        #expect(
            problems(
                """
                defaults: { publish: 1/s }
                devices:
                  - name: a
                    payload: { fields: { X: { accelerometer: x } } }
                """) == ["test.yaml:3:5: missing 'topic' in device group 'a'"])
    }

    @Test func defaultsMustBeAMapping() {
        #expect(
            problems("defaults: [1]\n" + minimalDevices) == [
                "test.yaml:1:11: expected a mapping for 'defaults', found a list"
            ])
    }
}

@Suite struct JitterLoadingTests {
    @Test func autoOrADuration() throws {
        #expect(try load(minimalDevices + "\n    jitter: auto").groups.first?.jitter == .auto)
        #expect(try load(minimalDevices + "\n    jitter: 250ms").groups.first?.jitter == .upTo(0.25))
        #expect(try load(minimalDevices + "\n    jitter: 0s").groups.first?.jitter == .upTo(0))
        #expect(try load(minimalDevices).groups.first?.jitter == nil, "no jitter unless asked")
    }

    @Test func autoIsOnePublishInterval() {
        #expect(StartJitter.auto.seconds(perSecond: 4) == 0.25)
        #expect(StartJitter.auto.seconds(perSecond: .infinity) == 0)
        #expect(StartJitter.upTo(2).seconds(perSecond: 4) == 2)
    }

    @Test func badJitterSaysWhatIsAllowed() {
        #expect(
            problems(minimalDevices + "\n    jitter: -1s") == [
                "test.yaml:8:13: expected auto (one publish interval), none or a duration such as 250ms, 30s, 5m, 1.5h or 2d for 'jitter', found '-1s'"
            ])
        #expect(
            problems(minimalDevices + "\n    jiter: auto") == [
                "test.yaml:8:5: unknown key 'jiter' in a device group; did you mean 'jitter'?"
            ])
    }
}

@Suite struct IncludeTests {
    static let rooms = """
        devices:
          - name: room
            count: 2
            topic: "rooms/{id}"
        """

    @Test func includedGroupsComeFirstAndInheritTheDefaults() throws {
        let scenario = try loadFleet(
            "site/main.yaml",
            [
                "site/main.yaml": """
                name: site
                defaults:
                  publish: 1/s
                  payload: { fields: { X: { accelerometer: x } } }
                include: [parts/rooms.yaml, meters.yaml]
                devices:
                  - name: phone
                    topic: phones
                """,
                "site/parts/rooms.yaml": Self.rooms,
                "site/meters.yaml": """
                defaults: { publish: 5/s }
                devices:
                  - name: meter
                    topic: meters
                """,
            ])
        #expect(scenario.name == "site")
        #expect(scenario.groups.map(\.name) == ["room", "meter", "phone"])
        #expect(
            scenario.groups.map(\.publish) == [.every(seconds: 1), .every(seconds: 0.2), .every(seconds: 1)],
            "an included file's own defaults win over those it inherits")
        #expect(scenario.groups.allSatisfy { $0.payload.fields.map(\.name) == ["X"] })
        #expect(
            scenario.groups.map { $0.location?.description } == [
                "site/parts/rooms.yaml:2:5", "site/meters.yaml:3:5", "site/main.yaml:7:5",
            ])
    }

    @Test func aSingleFileAndNoDevicesOfItsOwn() throws {
        let scenario = try loadFleet(
            "main.yaml",
            [
                "main.yaml": "include: rooms.yaml\ndefaults: { publish: 1/s, payload: { fields: { X: { uuid: } } } }\n",
                "rooms.yaml": Self.rooms,
            ])
        #expect(scenario.groups.map(\.name) == ["room"])
    }

    @Test func nestedIncludesResolveAgainstTheirOwnFile() throws {
        let scenario = try loadFleet(
            "a/main.yaml",
            [
                "a/main.yaml": "include: [b/mid.yaml]\ndefaults: { publish: 1/s, payload: { fields: { X: { uuid: } } } }\n",
                "a/b/mid.yaml": "include: [../c/leaf.yaml]\n",
                "a/b/../c/leaf.yaml": Self.rooms,
            ])
        #expect(scenario.groups.map(\.name) == ["room"])
    }

    @Test func aMissingFileIsReportedAtItsEntry() {
        #expect(
            fleetProblems("main.yaml", ["main.yaml": "include:\n  - nothere.yaml\n" + minimalDevices]) == [
                "main.yaml:2:5: cannot include 'nothere.yaml': no such file (looked for nothere.yaml)"
            ])
    }

    @Test func aCycleIsReportedAtTheEntryThatClosesIt() {
        #expect(
            fleetProblems(
                "dir/a.yaml",
                [
                    "dir/a.yaml": "include: [b.yaml]\n" + minimalDevices,
                    "dir/b.yaml": "include: [./a.yaml]\n",
                ]) == [
                    "dir/b.yaml:1:11: include cycle: dir/a.yaml → dir/b.yaml → dir/./a.yaml; a file cannot include itself, directly or through others"
                ])
        #expect(
            fleetProblems("self.yaml", ["self.yaml": "include: self.yaml\n" + minimalDevices]) == [
                "self.yaml:1:10: include cycle: self.yaml → self.yaml; a file cannot include itself, directly or through others"
            ])
    }

    @Test func everyProblemIsReportedInTheFileItIsIn() {
        #expect(
            fleetProblems(
                "main.yaml",
                [
                    "main.yaml": """
                    include: [rooms.yaml]
                    devices:
                      - name: phone
                        topic: t
                        publish: 1/fortnight
                        payload: { fields: { X: { accelerometer: x } } }
                    """,
                    "rooms.yaml": """
                    broker: { host: elsewhere }
                    devices:
                      - name: room
                        topic: r
                        qos: 9
                        publish: 1/s
                        payload: { fields: { X: { accelerometer: x } } }
                    """,
                ]) == [
                    "main.yaml:5:14: expected a rate such as 10/s, 600/min, 10Hz, 1/60s or max, or onChange to send on a change, for 'publish', found '1/fortnight'",
                    "rooms.yaml:1:9: 'broker' cannot be set in an included file; set it in main.yaml, which includes this one",
                    "rooms.yaml:5:10: expected 0, 1 or 2 for 'qos', found 9",
                ])
    }

    @Test func groupNamesMustDifferAcrossFiles() {
        #expect(
            fleetProblems(
                "main.yaml",
                [
                    "main.yaml": "include: [rooms.yaml, again/rooms.yaml]\n"
                        + minimalDevices.replacingOccurrences(of: "phone", with: "room"),
                    "rooms.yaml": Self.rooms + "\n    publish: 1/s\n    payload: { fields: { X: { uuid: } } }\n",
                    "again/rooms.yaml": Self.rooms + "\n    publish: 1/s\n    payload: { fields: { X: { uuid: } } }\n",
                ]) == [
                    "main.yaml:1:23: device group name 'room' (again/rooms.yaml:2:5) is already used at rooms.yaml:2:5; names must differ",
                    "main.yaml:3:5: device group name 'room' is already used at rooms.yaml:2:5; names must differ",
                ])
    }

    @Test func theSameFileTwiceIsSaidPlainly() {
        #expect(
            fleetProblems(
                "main.yaml",
                [
                    "main.yaml": "include: [rooms.yaml, ./rooms.yaml]\ndefaults: { publish: 1/s, payload: { fields: { X: { uuid: } } } }\n",
                    "rooms.yaml": Self.rooms,
                ]) == ["main.yaml:1:23: './rooms.yaml' is already included at line 1"])
    }

    @Test func includeTakesFileNames() {
        #expect(
            fleetProblems("main.yaml", ["main.yaml": "include: { a: b }\n" + minimalDevices]) == [
                "main.yaml:1:10: expected a list of files for 'include', such as [rooms.yaml, meters.yaml], found a mapping"
            ])
        #expect(
            fleetProblems("main.yaml", ["main.yaml": "include: [\"\", [x]]\n" + minimalDevices]) == [
                "main.yaml:1:11: expected the path of a scenario file to include, found the string \"\"",
                "main.yaml:1:15: expected text for 'include', found a list",
            ])
    }

    @Test func environmentReachesIncludedFiles() throws {
        let scenario = try loadFleet(
            "main.yaml",
            [
                "main.yaml": "include: [\"${PART:-rooms}.yaml\"]\ndefaults: { publish: 1/s, payload: { fields: { X: { uuid: } } } }\n",
                "rooms.yaml": "devices:\n  - { name: room, topic: \"${SITE}/{id}\" }\n",
            ], environment: ["SITE": "north"])
        #expect(scenario.groups.first?.topic == Template("north/{id}"))
    }
}

@Suite struct ValidationHintTests {
    @Test func aRateOfZeroIsNamedAsSuch() {
        let text = minimalDevices.replacingOccurrences(of: "publish: 1/s", with: "publish: 0/s\n    sample: 0Hz\n    rampUp: 0/min")
        #expect(
            problems(text) == [
                "test.yaml:4:14: expected a rate above zero such as 10/s, 600/min, 10Hz or 1/60s for 'publish', found '0/s': a rate of zero never ticks",
                "test.yaml:5:13: expected a rate above zero such as 10/s, 600/min, 10Hz or 1/60s for 'sample', found '0Hz': a rate of zero never ticks",
                "test.yaml:6:13: expected a rate above zero such as 10/s, 600/min, 10Hz or 1/60s for 'rampUp', found '0/min': a rate of zero never ticks",
            ])
    }

    @Test func zeroRates() {
        #expect(ScenarioReader.isZeroRate("0/s"))
        #expect(ScenarioReader.isZeroRate(" 0.0 / min"))
        #expect(ScenarioReader.isZeroRate("0Hz"))
        #expect(ScenarioReader.isZeroRate("0"))
        #expect(!ScenarioReader.isZeroRate("10/s"))
        #expect(!ScenarioReader.isZeroRate("1/0s"))
        #expect(!ScenarioReader.isZeroRate("max"))
        #expect(!ScenarioReader.isZeroRate("/s"))
    }

    @Test func unknownGroupKeyGetsTheClosestAndWrongTypeTheExpected() {
        let text = minimalDevices.replacingOccurrences(of: "publish: 1/s", with: "publsh: 1/s\n    retain: 1\n    count: [2]")
        #expect(
            problems(text) == [
                "test.yaml:2:5: missing 'publish' in device group 'phone'",
                "test.yaml:4:5: unknown key 'publsh' in a device group; did you mean 'publish'?",
                "test.yaml:5:13: expected true or false for 'retain', found '1'",
                "test.yaml:6:12: expected an integer from 1 to 1000000 for 'count', found a list",
            ])
    }

    @Test func anUnknownGeneratorListsTheGenerators() {
        let text = minimalDevices.replacingOccurrences(of: "X: { accelerometer: x }", with: "X: { gyroscope: x }")
        #expect(
            problems(text) == [
                "test.yaml:7:14: unknown generator 'gyroscope'; expected one of: sine, accelerometer, uuid"
            ])
    }

    @Test func aNegativePeriodSaysWhatIsAllowed() {
        let text = minimalDevices.replacingOccurrences(of: "X: { accelerometer: x }", with: "X: { sine: { period: -1h } }")
        #expect(
            problems(text) == [
                "test.yaml:7:30: expected a duration such as 250ms, 30s, 5m, 1.5h or 2d of zero or more for 'period', found '-1h'"
            ])
    }
}
