import Scenario
import Signals
import Testing

@testable import Report
@testable import Simulator

/// Issue 14, item 3: reading a command message, in each of its forms.
@Suite struct DeviceCommandTests {
    private func plan(_ topic: String, response: String? = nil) -> CommandPlan {
        CommandPlan(commands: Commands(topic: Template(topic), response: response.map(Template.init)), name: "t", index: 1, id: "t-1")
    }

    private func parse(_ payload: String, topic: String, _ plan: CommandPlan) throws -> DeviceCommand {
        try DeviceCommand.parse(topic: topic, payload: Array(payload.utf8), plan: plan)
    }

    @Test func theFormsOfACommand() throws {
        let json = plan("home/{id}/set")
        #expect(json.filter == "home/t-1/set" && json.matches("home/t-1/set") && !json.matches("home/t-2/set"))
        let set = try parse(#"{"light": true, "target": 21.5, "mode": "cool"}"#, topic: "home/t-1/set", json)
        #expect(set.assignments.map(\.field) == ["light", "mode", "target"])
        #expect(set.assignments.map(\.value) == [.bool(true), .text("cool"), .number(21.5)])
        let device = try parse(#"{"rate": "2/s", "get": true}"#, topic: "home/t-1/set", json)
        #expect(device.perSecond == 2 && device.asksForState && device.assignments.isEmpty)

        let perField = plan("home/{id}/set/{field}")
        #expect(perField.filter == "home/t-1/set/+" && perField.fieldLevel == 3)
        #expect(try parse("ON", topic: "home/t-1/set/light", perField).assignments.map(\.value) == [.text("ON")])
        #expect(try parse("21.5", topic: "home/t-1/set/target", perField).assignments.map(\.value) == [.number(21.5)])

        let rpc = plan("v1/devices/{id}/rpc/request/{requestId}", response: "v1/devices/{id}/rpc/response/{requestId}")
        #expect(rpc.filter == "v1/devices/t-1/rpc/request/+" && rpc.response == "v1/devices/t-1/rpc/response/{requestId}")
        let request = try parse(#"{"method": "target", "params": 23}"#, topic: "v1/devices/t-1/rpc/request/42", rpc)
        #expect(
            request.requestID == "42" && request.assignments.map(\.field) == ["target"] && request.assignments.map(\.value) == [.number(23)]
        )
        #expect(try parse(#"{"method": "get"}"#, topic: "v1/devices/t-1/rpc/request/7", rpc).asksForState)
    }

    @Test func whatIsNoCommandSaysWhy() {
        let json = plan("home/{id}/set")
        #expect(throws: CommandRejection.self) { try parse("not json", topic: "home/t-1/set", json) }
        #expect(throws: CommandRejection("an empty command names no field")) { try parse("{}", topic: "home/t-1/set", json) }
        #expect(throws: CommandRejection("'rate' is a rate above zero such as \"5/s\" (or a number a second), not 'fast'")) {
            try parse(#"{"rate": "fast"}"#, topic: "home/t-1/set", json)
        }
        #expect(throws: CommandRejection("'a' of a command takes a number, true, false or text, not an object or list")) {
            try parse(#"{"a": [1]}"#, topic: "home/t-1/set", json)
        }
    }
}
