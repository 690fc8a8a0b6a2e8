import MQTT
import Scenario
import Testing

/// The devices `devsim record` finds in a recording, by the topic level that names them, and the
/// scenario it writes that replays each.
@Suite struct RecordingScenarioTests {
    @Test func topicsAreGroupedByTheLevelThatVariesBetweenAlikeTopics() {
        let messages = ["building/room-1/climate", "building/room-2/climate", "building/room-1/door"].enumerated().map {
            RecordedMessage(time: Double($0.offset), topic: $0.element, payload: [])
        }
        let devices = Recording(messages: messages).devices()
        #expect(devices.map(\.id) == ["room-1", "room-2"])
        #expect(devices.map(\.topics) == [["building/room-1/climate", "building/room-1/door"], ["building/room-2/climate"]])
        #expect(devices.map(\.idLevel) == [1, 1])
        #expect(devices[0].template(of: "building/room-1/door") == "building/{id}/door")
    }

    @Test func levelsWithoutDigitsNameDevicesAtTheEarliestLevel() {
        let topics = ["home/kitchen/temperature", "home/hall/temperature", "home/kitchen/humidity"]
        let devices = Recording(messages: topics.map { RecordedMessage(time: 0, topic: $0, payload: []) }).devices()
        #expect(devices.map(\.id) == ["kitchen", "hall"])
    }

    @Test func aSingleTopicIsNamedByItsLevelWithADigitElseItsLast() {
        #expect(
            Recording(messages: [RecordedMessage(time: 0, topic: "factory/line-3/press", payload: [])]).devices().map(\.id) == ["line-3"])
        #expect(Recording(messages: [RecordedMessage(time: 0, topic: "home/boiler", payload: [])]).devices().map(\.id) == ["boiler"])
    }

    @Test func theReplayScenarioHasAGroupPerRecordedDevice() {
        let messages = ["building/room-1/climate", "building/room-2/climate", "building/room-1/door"].enumerated().map {
            RecordedMessage(time: Double($0.offset), topic: $0.element, qos: $0.offset == 2 ? .exactlyOnce : .atMostOnce, payload: [])
        }
        let text = RecordingScenario.replay(Recording(messages: messages), file: "recording.jsonl", name: "r")
        #expect(
            text.contains(
                """
                  - name: "room-1"
                    count: 1                  # copies of this device; 1 replays it as recorded
                    # its id; with a count above 1, a template such as "room-1-{index}"
                    id: "room-1"
                    qos: 2
                """), "\(text)")
        #expect(text.contains(#"topics: ["building/room-1/climate", "building/room-1/door"]"#), "\(text)")
        #expect(text.contains(#"topics: "building/room-2/climate""#), "\(text)")
    }
}
