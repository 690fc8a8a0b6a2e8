import MQTT
import Scenario
import Signals
@testable import Report
@testable import Simulator
import Testing

/// The verifier's parts that need no broker: the per-topic sequence tracker, topic filters and
/// the payload scan.
struct VerifyTrackerTests {
    @Test func aLostSubscriberIsOneSentence() {
        #expect(
            VerifierConnection.lossWarning("connection lost: The connection was lost.")
                == "verify: subscriber connection lost: The connection was lost; what is published meanwhile is missed while away")
    }

    @Test func inOrderNumbersAreAllNew() {
        var tracker = SequenceTracker()
        for n in 0..<100 { #expect(tracker.record(Int64(n)) == .new) }
        #expect(tracker.received == 100)
        #expect(tracker.duplicated == 0)
        #expect(tracker.outOfOrder == 0)
        #expect(tracker.gaps == 0)
    }

    @Test func duplicatesAndLateArrivalsAreToldApart() {
        var tracker = SequenceTracker()
        for n: Int64 in [0, 1, 2, 5, 6] { tracker.record(n) }
        #expect(tracker.record(6) == .duplicate, "the highest again")
        #expect(tracker.record(1) == .duplicate, "an older one again")
        #expect(tracker.record(3) == .outOfOrder, "new, but after 5 and 6")
        #expect(tracker.record(3) == .duplicate)
        #expect(tracker.received == 6)
        #expect(tracker.duplicated == 3)
        #expect(tracker.outOfOrder == 1)
        #expect(tracker.highest == 6)
        #expect(tracker.gaps == 1, "4 never came")
    }

    @Test func theWindowForgetsWhatItMustAndKeepsWhatItCan() {
        var tracker = SequenceTracker()
        tracker.record(0)
        // A jump past the whole window clears it: old bits must not read as seen.
        let far = Int64(SequenceTracker.window) * 3 + 7
        tracker.record(far)
        #expect(tracker.record(far - Int64(SequenceTracker.window) + 1) == .outOfOrder)
        #expect(tracker.record(far - 1) == .outOfOrder)
        #expect(tracker.record(far - 1) == .duplicate)
        // Beyond the window: cannot be checked, counted as new and out of order.
        #expect(tracker.record(far - Int64(SequenceTracker.window) - 5) == .outOfOrder)
        #expect(tracker.beyondWindow == 1)
        // Sliding one by one reuses bit positions: each is cleared before reuse.
        var sliding = SequenceTracker()
        for n in 0..<(3 * SequenceTracker.window) { #expect(sliding.record(Int64(n)) == .new) }
        #expect(sliding.duplicated == 0)
        #expect(sliding.record(Int64(3 * SequenceTracker.window - 2)) == .duplicate)
    }

    @Test func placeholderLevelsBecomeWildcards() {
        #expect(VerifyPlan.topicFilter("app/{id}/push") == "app/+/push")
        #expect(VerifyPlan.topicFilter("{name}-{index}/data") == "+/data")
        #expect(VerifyPlan.topicFilter("sensors/room-{index}") == "sensors/+")
        #expect(VerifyPlan.topicFilter("fixed/topic") == "fixed/topic")
        #expect(VerifyPlan.topicFilter("/lead/{id}/") == "/lead/+/")
        #expect(VerifyPlan.filter("app/+/push", matches: "app/phone-1/push"))
        #expect(!VerifyPlan.filter("app/+/push", matches: "app/a/b/push"))
        #expect(VerifyPlan.filter("app/#", matches: "app/a/b"))
    }

    @Test func filtersAreDedupedPerBrokerWithTheHighestQoS() throws {
        let yaml = """
            devices:
              - name: a
                count: 3
                topic: "t/{id}/x"
                publish: 1/s
                payload: { fields: { seq: { counter: 0 } } }
              - name: b
                count: 2
                topic: "t/{name}-{index}/x"
                publish: 1/s
                qos: 1
                payload: { fields: { seq: { counter: 0 } } }
            """
        let plan = try plan(yaml: yaml, file: "t.yaml")
        let filters = Set(plan.connections.flatMap(\.devices).map { "\($0.verify.topicFilter) \($0.verify.qos)" })
        #expect(filters == ["t/+/x 0", "t/+/x 1"])
        let verifier = try Verifier(plan: plan, logger: Logger(minimumLevel: .error) { _ in })
        #expect(verifier.topics.count == 5)
        #expect(verifier.subscriptionFilters == [["t/+/x": .atLeastOnce]])
    }

    /// One subscriber connection cannot keep up with several publishing ones (the broker's window
    /// towards it), so with more loops the topics are dealt over connections, each named exactly.
    @Test func withMoreLoopsTheTopicsAreDealtOverSubscribersByName() throws {
        let yaml = """
            devices:
              - name: a
                count: 3
                topic: "t/{id}/x"
                publish: 1/s
                qos: 1
                payload: { fields: { seq: { counter: 0 } } }
            """
        let plan = try plan(yaml: yaml, file: "t.yaml")
        let verifier = try Verifier(plan: plan, loops: 2, logger: Logger(minimumLevel: .error) { _ in })
        #expect(verifier.subscriptionFilters == [["t/a-1/x": .atLeastOnce, "t/a-3/x": .atLeastOnce], ["t/a-2/x": .atLeastOnce]])
        #expect(verifier.topics.map(\.topic).sorted() == ["t/a-1/x", "t/a-2/x", "t/a-3/x"])
        // Never more subscribers than topics.
        let wide = try Verifier(plan: plan, loops: 8, logger: Logger(minimumLevel: .error) { _ in })
        #expect(wide.subscriptionFilters.count == 3)
    }

    @Test func sequenceAndTimestampAreReadFromEveryJSONStyle() throws {
        let group = DeviceGroup(
            name: "g", id: Template("g-{index}"), clientID: Template("{id}"), topic: Template("g/{id}"),
            publish: .every(seconds: 1),
            payload: PayloadSpec(fields: [
                FieldSpec(name: "v", generator: ConstantRecipe(value: .number(1))),
                FieldSpec(
                    name: "meta",
                    fields: [
                        FieldSpec(name: "n", generator: CounterRecipe(start: 100, step: 5)),
                        FieldSpec(name: "at", generator: TimestampRecipe(unit: .milliseconds)),
                    ]),
            ]),
            verify: VerifyFields(sequence: "n", timestamp: "at"))
        let plan = VerifyPlan(group: group)
        func read(_ text: String) -> (Int64?, Int64?) {
            Array(text.utf8).withUnsafeBytes { (plan.sequence(in: $0), plan.timestamp(in: $0)) }
        }
        #expect(read(#"{"params":{"v":1,"meta":{"n":115,"at":1700000000123}}}"#) == (3, 1_700_000_000_123_000_000))
        #expect(read(#"{"v":1,"meta":{"n": 100,"at":5}}"#) == (0, 5_000_000))
        #expect(read(#"{"v":1,"meta":{"n":101}}"#) == (nil, nil), "not a value the counter makes")
        #expect(read(#"{"v":"n","x":1}"#) == (nil, nil))
        #expect(read("") == (nil, nil))
    }

    @Test func aTemplatePayloadIsReadFromNameEqualsValue() throws {
        let group = DeviceGroup(
            name: "g", id: Template("g-{index}"), clientID: Template("{id}"), topic: Template("g/{id}"),
            publish: .every(seconds: 1),
            payload: PayloadSpec(
                style: .template,
                fields: [
                    FieldSpec(name: "seq", generator: CounterRecipe()),
                    FieldSpec(name: "ts", generator: TimestampRecipe(unit: .nanoseconds)),
                ],
                template: try PayloadTemplate("m,id={{id}} seq={{seq}}i {{ts}}")))
        let plan = VerifyPlan(group: group)
        #expect(plan.readsSequence)
        let line = Array("m,id=g-1 seq=42i 1700000000000000001".utf8)
        #expect(line.withUnsafeBytes { plan.sequence(in: $0) } == 42)
        // Written without `ts=`, the timestamp cannot be found: the documented limit, and
        // the plan says so rather than look for it in every message.
        #expect(!plan.readsTimestamp && line.withUnsafeBytes { plan.timestamp(in: $0) } == nil)
    }

    /// A CSV line has no `seq=` to find: the counter is there, but not readable, and the plan
    /// says so (`--verify` warns; a capacity step's `lost` is refused).
    @Test func aTemplateWithoutNameEqualsIsNotRead() throws {
        let group = DeviceGroup(
            name: "g", id: Template("g-{index}"), clientID: Template("{id}"), topic: Template("g/{id}"),
            publish: .every(seconds: 1),
            payload: PayloadSpec(
                style: .template, fields: [FieldSpec(name: "seq", generator: CounterRecipe())],
                template: try PayloadTemplate("{{id}},{{seq}},seq=")))
        #expect(!VerifyPlan(group: group).readsSequence)
    }

    @Test func theLoaderChecksTheVerifyFields() throws {
        let yaml = """
            devices:
              - name: a
                topic: "t/{id}"
                publish: 1/s
                verify: { sequence: n, timestamp: at }
                payload: { fields: { n: { uniform: { min: 0, max: 1 } }, at: { timestamp: iso8601 } } }
            """
        do {
            _ = try scenario(yaml: yaml, file: "t.yaml")
            Issue.record("loaded a scenario whose verify fields cannot be read")
        } catch {
            let text = "\(error)"
            #expect(text.contains("'n' must be made by a 'counter'"), "\(text)")
            #expect(text.contains("'at' must be a 'timestamp' in s, ms, us or ns"), "\(text)")
        }
        let good = yaml.replacingOccurrences(of: "{ uniform: { min: 0, max: 1 } }", with: "{ counter: 1 }")
            .replacingOccurrences(of: "iso8601", with: "us")
        let scenario = try scenario(yaml: good, file: "t.yaml")
        #expect(scenario.groups[0].verify == VerifyFields(sequence: "n", timestamp: "at"))
        // Issue 25, item 7: a counter with a time of day skips steps, each of which would count as lost.
        let shaped = good.replacingOccurrences(of: "{ counter: 1 }", with: "{ counter: { start: 1, peakAt: \"14:00\" } }")
        do {
            _ = try SimulatorTests.scenario(yaml: shaped, file: "t.yaml")
            Issue.record("loaded a counter with peakAt as the verify sequence")
        } catch {
            #expect("\(error)".contains("'n' must be a counter without peakAt"), "\(error)")
        }
    }
}
