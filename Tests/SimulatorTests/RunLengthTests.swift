import Scenario
import Simulator
import Testing

/// Issue 26, item 3: how long a run of stages lasts when nothing else ends it, and how long its
/// connections take to open, decided in the library and said by the command line.
@Suite struct RunLengthTests {
    private static func meter(count: Int = 1, extra: String = "") -> String {
        """
        devices:
          - name: meter
            count: \(count)
            topic: "m/{index}"
            publish: 1/s
            payload: { fields: { seq: { counter: 0 } } }
        \(extra)
        """
    }

    @Test func aRunWithoutAnEndLastsItsLongestProfile() throws {
        let staged =
            "stages: [{ duration: 3s, multiplier: 2 }, { duration: 2s, multiplier: 1 }]\n"
            + Self.meter(extra: "    stages: [{ duration: 9s, rate: 2/s }]")
        let profiles = try plan(yaml: staged)
        let lasting = try #require(RunSettings().lastingTheStages(of: profiles))
        #expect(lasting.settings.duration == .seconds(9) && lasting.stages.count == 1, "the group's own 9 s, the longest")
        #expect(RunSettings(duration: .seconds(2)).lastingTheStages(of: profiles) == nil, "--duration ends it")
        #expect(try RunSettings().lastingTheStages(of: plan(yaml: Self.meter())) == nil, "no stages")
    }

    /// `--messages` ends a run at its count, unless every profile ends at nothing, which would
    /// never spend it.
    @Test func aMessageCountEndsItUnlessTheProfileEndsAtNothing() throws {
        let holding = try plan(yaml: "stages: [{ duration: 4s, multiplier: 2 }]\n" + Self.meter())
        #expect(RunSettings(messages: 10).lastingTheStages(of: holding) == nil)
        let stopping = try plan(yaml: "stages: [{ duration: 4s, multiplier: 2 }, { duration: 1s, rate: 0/s }]\n" + Self.meter())
        let lasting = try #require(RunSettings(messages: 10).lastingTheStages(of: stopping))
        #expect(lasting.settings.duration == .seconds(5) && lasting.settings.messages == 10 && lasting.stages.count == 2)
    }

    @Test func aRampIsToldWhenItTakesTwoSecondsOrMore() throws {
        #expect(try plan(yaml: Self.meter(count: 10)).ramp == nil, "ten connections open at once")
        let ramp = try #require(try plan(yaml: Self.meter(count: 50, extra: "    rampUp: 10/s")).ramp)
        #expect(ramp.connections == 50 && ramp.lastOpen >= 4.8 && ramp.lastOpen <= 5, "\(ramp)")
    }
}
