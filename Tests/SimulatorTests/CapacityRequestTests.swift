import Report
import Simulator
import Testing

/// Issue 26, item 3: what a capacity search may be asked, refused before anything connects,
/// in-process with the messages the command line gives (exit 2).
@Suite struct CapacityRequestTests {
    private static let meter = """
        devices:
          - name: meter
            count: 2
            topic: "m/{index}"
            publish: 5/s
            qos: 1
            payload: { fields: { seq: { counter: 0 } } }
        """

    private func refusal(
        _ request: CapacityRequest, _ yaml: String = meter, settings: RunSettings = RunSettings(), dryRun: Bool = false,
        messages: Int? = nil, verify: Bool = false
    ) throws -> String? {
        let plan = try plan(yaml: yaml, settings: settings)
        do throws(RunCheckError) {
            _ = try request.settings(for: plan, dryRun: dryRun, messages: messages, verify: verify)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aSearchStartsAtTheScenariosOwnRate() throws {
        let request = CapacityRequest(find: true, slos: [try Assertion("p99<50ms")], step: .seconds(3))
        let settings = try #require(try request.settings(for: try plan(yaml: Self.meter), dryRun: false, messages: nil, verify: false))
        #expect(settings.baseRatePerSecond == 10 && settings.step == .seconds(3) && settings.warmUp == Defaults.capacityWarmUp)
        #expect(try CapacityRequest().settings(for: try plan(yaml: Self.meter), dryRun: false, messages: nil, verify: false) == nil)
    }

    @Test func theSearchesFlagsNeedTheSearch() throws {
        #expect(try refusal(CapacityRequest(slos: [try Assertion("p99<5ms")])) == "--slo is for --find-capacity, which is not given")
        #expect(
            try refusal(CapacityRequest(step: .seconds(1), warmUp: .seconds(1)))
                == "--step, --warmup are for --find-capacity, which is not given")
        #expect(
            try refusal(CapacityRequest(find: true))
                == "--find-capacity needs the SLOs each step must meet: --slo 'lateness.p99<5ms' --slo 'p99<50ms'")
    }

    @Test func aRunThatCannotSearchIsRefused() throws {
        let search = CapacityRequest(find: true, slos: [try Assertion("p99<50ms")])
        #expect(try refusal(search, dryRun: true) == "--find-capacity: a dry run measures nothing to search with")
        #expect(
            try refusal(search, messages: 10)
                == "--find-capacity: the search sets the run's length; leave out --messages (--duration caps it)")
        #expect(
            try refusal(search, "subscribers: [{ name: screens, topics: \"m/#\" }]\n")
                == "--find-capacity: the search steps up the devices' rate, and the scenarios have none (subscribers alone)")
        var sharded = RunSettings()
        sharded.shard = try Shard.parse("1/2")
        #expect(try refusal(search, settings: sharded) == "--find-capacity: each shard would search alone: run the search in one process")
        #expect(
            try refusal(search, "stages: [{ duration: 10s, multiplier: 2 }]\n" + Self.meter)
                == "--find-capacity: the scenario's stages set the rate, which the search must: leave out stages:")
        #expect(
            try refusal(
                search,
                Self.meter.replacingOccurrences(of: "publish: 5/s", with: "publish: 5/s\n    stages: [{ duration: 10s, multiplier: 2 }]"))
                == "--find-capacity: device group 'meter' has stages of its own, which set its rate: leave them out")
        #expect(
            try refusal(search, Self.meter.replacingOccurrences(of: "publish: 5/s", with: "publish: max"))
                == "--find-capacity: device group 'meter' publishes at max, which has no rate to step up")
    }

    @Test func anSLOTheStepsCannotJudgeIsRefused() throws {
        #expect(
            try refusal(CapacityRequest(find: true, slos: [try Assertion("lost==0")]))
                == "--slo: lost==0: lost is measured by the closed-loop check; add --verify")
        let unnumbered = Self.meter.replacingOccurrences(of: "seq: { counter: 0 }", with: "n: { uniform: { min: 0, max: 1 } }")
        let lost = try refusal(CapacityRequest(find: true, slos: [try Assertion("lost==0")]), unnumbered, verify: true)
        #expect(lost?.hasPrefix("--slo: lost==0: device group 'meter' has no sequence counter in its payload") == true, "\(lost ?? "")")
        #expect(try refusal(CapacityRequest(find: true, slos: [try Assertion("lost==0")]), verify: true) == nil)
    }
}
