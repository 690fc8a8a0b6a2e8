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

    /// Issue 27, item 3: Azure IoT Hub's commands, implied by `broker.azureIoTHub` for a group
    /// with fields that take commands: cloud-to-device messages under a `#`, and direct methods
    /// whose request id is the `?$rid=` of the last level, not a level of its own.
    @Test func azureIoTHubsCloudToDeviceMessagesAndDirectMethods() throws {
        let scenario = try ScenarioLoader.load(
            text: """
                broker: { azureIoTHub: { hub: h.azure-devices.net, deviceKey: ZGV2c2lt } }
                devices:
                  - { name: t, topic: "devices/{id}/messages/events/", publish: 1/s, payload: { fields: { target: { constant: 1, command: set } } } }
                """, file: "azure.yaml", environment: [:])
        let azure = try #require(FleetPlan.azureCommands(of: scenario.groups[0], id: "t-1"))
        #expect(azure.filters == ["devices/t-1/messages/devicebound/#", "$iothub/methods/POST/#"])
        #expect(azure.route(for: "devices/t-1/messages/devicebound/%24.to=x") == azure)
        #expect(azure.route(for: "devices/t-2/messages/devicebound/x") == nil, "another device's")
        let methods = try #require(azure.route(for: "$iothub/methods/POST/target/?$rid=42"))
        #expect(methods != azure && azure.route(for: "$iothub/methods/res/200/?$rid=42") == nil, "its own answers are no request")
        let method = try parse("23.5", topic: "$iothub/methods/POST/target/?$rid=42", methods)
        #expect(
            method.requestID == "42" && method.assignments.map(\.field) == ["target"] && method.assignments.map(\.value) == [.number(23.5)])
        #expect(try parse("\"eco\"", topic: "$iothub/methods/POST/mode/?$rid=7&x=1", methods).assignments.map(\.value) == [.text("eco")])
        #expect(try parse("", topic: "$iothub/methods/POST/get/?$rid=8", methods).asksForState, "a method without a payload asks")
        #expect(methods.response.map { $0.replacingRequestID("42", status: 404) } == "$iothub/methods/res/404/?$rid=42")
        let message = try parse(#"{"target": 19}"#, topic: "devices/t-1/messages/devicebound/", azure)
        #expect(message.assignments.map(\.value) == [.number(19)] && message.requestID == nil)
        var plain = scenario.groups[0]
        plain.payload.fields[0].command = nil
        #expect(FleetPlan.azureCommands(of: plain, id: "t-1") == nil, "nothing to command, nothing subscribed")
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
