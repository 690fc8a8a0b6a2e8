import Report
import Simulator
import Testing
import TestSupport

/// What reaches the broker in CONNECT, and each protocol version against a real mosquitto.
@Suite(.tags(.integration), .notUnitOnly) struct ConnectOptionsTests {
    @Test func connectCarriesTheScenariosSettings() throws {
        let server = try ScriptedMQTTServer()
        let yaml = """
            broker:
              protocol: mqtt311
              keepalive: 45s
              cleanSession: false
              username: sdammy
              password: ${APP_ID:-demo}
              will: { topic: "devices/{id}/status", message: offline, qos: 1, retain: true }
            devices:
              - name: phone
                id: "phone-{index}"
                clientId: "client-{id}"
                topic: t
                publish: 10/s
                payload:
                  fields:
                    x: { constant: 1 }
            """
        let harness = try FleetHarness(
            yaml, port: server.port, settings: RunSettings(messages: 3, statsInterval: nil),
            environment: ["APP_ID": "my-app"])
        harness.start()
        _ = try #require(try harness.result(timeout: 10))
        let connect = try #require(server.connections.first?.connect)
        #expect(connect.protocolLevel == 4)
        #expect(connect.clientID == "client-phone-1")
        #expect(connect.username == "sdammy")
        #expect(connect.passwordText == "my-app")
        #expect(connect.keepAlive == 45)
        #expect(!connect.cleanSession)
        #expect(connect.will?.topic == "devices/phone-1/status")
        #expect(connect.will.map { String(decoding: $0.payload, as: UTF8.self) } == "offline")
        #expect(connect.will?.qos == 1)
        #expect(connect.will?.retain == true)
    }

    @Test(arguments: ["mqtt31", "mqtt311", "mqtt5"])
    func everyProtocolVersionPublishesAndIsAcknowledged(version: String) throws {
        let broker = try MosquittoBroker()
        let yaml = """
            broker:
              protocol: \(version)
            devices:
              - name: d
                topic: "v/{index}"
                publish: 50/s
                qos: 1
                payload:
                  fields:
                    n: { counter: 0 }
            """
        let result = try #require(try FleetHarness.run(yaml, port: broker.port, settings: RunSettings(messages: 20, statsInterval: nil)))
        #expect(result.reason == .messages)
        #expect(result.totals[.acknowledged] == 20)
    }
}
