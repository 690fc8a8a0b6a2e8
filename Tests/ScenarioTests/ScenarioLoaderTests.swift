import Foundation
import MQTT
import Testing
@testable import Scenario
import Signals
import TestSupport

@Suite struct ScenarioLoaderTests {
    @Test func defaults() throws {
        let scenario = try load(minimalDevices, file: "scenarios/phone-demo.yaml")
        #expect(scenario.name == "phone-demo")
        #expect(scenario.file == "scenarios/phone-demo.yaml")
        #expect(scenario.broker == BrokerSettings())
        #expect(scenario.offline == .drop)
        let group = try #require(scenario.groups.first)
        #expect(group.name == "phone")
        #expect(group.count == 1)
        #expect(group.id == Template("{name}-{index}"))
        #expect(group.clientID == Template("{id}"))
        #expect(group.sample == nil)
        #expect(group.publish == .every(seconds: 1))
        #expect(group.qos == .atMostOnce)
        #expect(group.retain == false)
        #expect(group.connection == .perDevice)
        #expect(group.rampUp == nil)
        #expect(group.payload.style == .milkcocoa)
        let id = group.id.render(name: group.name, index: 2, id: nil)
        #expect(id == "phone-2")
        #expect(group.clientID.render(name: group.name, index: 2, id: id) == "phone-2")
    }

    @Test func fullMilkcocoaScenario() throws {
        let text = """
            name: milkcocoa-accelerometer
            broker:
              host: localhost
              port: 1883
              protocol: mqtt311
              keepalive: 60s
              cleanSession: true
              username: sdammy
              password: ${MILKCOCOA_APP_ID}
              tls: { ca: ca.pem, insecure: false }
              will: { topic: devices/gone, message: bye, qos: 1, retain: true }
              reconnect: { initial: 500ms, max: 30s }
              ackTimeout: 2.5s
              onAckTimeout: reconnect
            offline: { policy: buffer, maxMessages: 500, maxBytes: 1MB }
            devices:
              - name: phone
                count: 3
                id: "phone-{index}"
                clientId: "{id}"
                topic: "${MILKCOCOA_APP_ID:-demo}/Test/push"
                sample: 10Hz
                publish: 1/s
                qos: 1
                retain: false
                connection: { shared: 2 }
                rampUp: 1000/s
                payload:
                  style: milkcocoa
                  fields:
                    Accel_X: { accelerometer: x, decimals: 4 }
                    Accel_Y: { accelerometer: { axis: y }, decimals: 4, noise: 0.01, min: -2, max: 2 }
            """
        let scenario = try load(text, file: "/etc/devsim/milkcocoa.yaml", environment: ["MILKCOCOA_APP_ID": "app123"])
        #expect(scenario.name == "milkcocoa-accelerometer")
        #expect(
            scenario.broker
                == BrokerSettings(
                    host: "localhost", port: 1883, protocol: .v311, keepalive: .seconds(60), cleanSession: true,
                    username: "sdammy", password: "app123", tls: TLSSettings(ca: "/etc/devsim/ca.pem", insecure: false),
                    will: Will(topic: "devices/gone", message: "bye", qos: .atLeastOnce, retain: true),
                    reconnect: ReconnectSettings(initial: .milliseconds(500), max: .seconds(30)),
                    ackTimeout: .milliseconds(2500), onAckTimeout: .reconnect))
        #expect(scenario.offline == .buffer(maxMessages: 500, maxBytes: 1_048_576))
        let group = try #require(scenario.groups.first)
        #expect(group.count == 3)
        #expect(group.topic.render(name: "phone", index: 1, id: "phone-1") == "app123/Test/push")
        #expect(group.sample == .every(seconds: 0.1))
        #expect(group.publish == .every(seconds: 1))
        #expect(group.qos == .atLeastOnce)
        #expect(group.connection == .shared(2))
        #expect(group.rampUp == .every(seconds: 0.001))
        let fields = group.payload.fields
        #expect(fields.map(\.name) == ["Accel_X", "Accel_Y"])
        #expect((fields[0].generator as? TestAccelerometer)?.axis == "x")
        #expect((fields[1].generator as? TestAccelerometer)?.axis == "y")
        #expect(fields[0].decimals == 4)
        #expect(fields[1].noise == 0.01)
        #expect(fields[1].min == -2)
        #expect(fields[1].max == 2)
    }

    @Test func jsonInputWorks() throws {
        let text = """
            {"broker": {"port": 8883, "username": "u"},
             "devices": [{"name": "meter", "topic": "m/{id}", "publish": "600/min",
                          "payload": {"style": "flat", "fields": {"b": {"uuid": {}}, "a": {"sine": {"period": "1h"}}}}}]}
            """
        let scenario = try load(text, file: "meter.json")
        #expect(scenario.name == "meter")
        #expect(scenario.broker.port == 8883)
        let group = try #require(scenario.groups.first)
        #expect(group.publish == .every(seconds: 0.1))
        #expect(group.payload.style == .flat)
        #expect(group.payload.fields.map(\.name) == ["b", "a"])
        #expect((group.payload.fields[1].generator as? TestSine)?.period == 3600)
    }

    @Test func fieldOrderIsKept() throws {
        let names = ["zeta", "alpha", "Mid", "beta", "_1", "a0"]
        let fields = names.map { "        \($0): { uuid: {} }" }.joined(separator: "\n")
        let text = "devices:\n  - name: d\n    topic: t\n    publish: 1/s\n    payload:\n      fields:\n" + fields
        let scenario = try load(text)
        #expect(scenario.groups.first?.payload.fields.map(\.name) == names)
    }

    @Test func tlsPathsAreRelativeToTheScenario() throws {
        let tls = "broker: { tls: { ca: certs/ca.pem, certificate: client.crt, key: /abs/client.key, insecure: true } }\n"
        let nested = try load(tls + minimalDevices, file: "scenarios/lab/a.yaml")
        #expect(
            nested.broker.tls
                == TLSSettings(
                    ca: "scenarios/lab/certs/ca.pem", certificate: "scenarios/lab/client.crt",
                    key: "/abs/client.key", insecure: true))
        let here = try load(tls + minimalDevices, file: "a.yaml")
        #expect(here.broker.tls?.ca == "certs/ca.pem")
    }

    @Test func offlineForms() throws {
        #expect(try load("offline: drop\n" + minimalDevices).offline == .drop)
        #expect(
            try load("offline: buffer\n" + minimalDevices).offline
                == .buffer(maxMessages: OfflinePolicy.defaultMaxMessages, maxBytes: OfflinePolicy.defaultMaxBytes))
        #expect(
            try load("offline: { policy: buffer }\n" + minimalDevices).offline
                == .buffer(maxMessages: 1024, maxBytes: 64 * 1024 * 1024))
        #expect(
            try load("offline: { policy: buffer, maxBytes: 64MB, maxMessages: 10 }\n" + minimalDevices).offline
                == .buffer(maxMessages: 10, maxBytes: 67_108_864))
    }

    @Test func anAbsurdReconnectBackoffIsHeldNotACrash() throws {
        let broker = try load("broker: { reconnect: { max: 300000000000000000000 } }\n" + minimalDevices).broker
        #expect(broker.reconnect?.max == .seconds(1_000_000_000))
    }

    @Test func keepaliveZeroMeansNone() throws {
        #expect(try load("broker: { keepalive: 0 }\n" + minimalDevices).broker.keepalive == .zero)
        #expect(try load("broker: { keepalive: 1m }\n" + minimalDevices).broker.keepalive == .seconds(60))
    }

    @Test func anchorsShareDeviceSettings() throws {
        let text = """
            devices:
              - &sensor
                name: a
                topic: "sensors/{id}"
                publish: 5/s
                payload: { fields: { v: { uuid: {} } } }
              - <<: *sensor
                name: b
            """
        let scenario = try load(text)
        #expect(scenario.groups.map(\.name) == ["a", "b"])
        #expect(scenario.groups.map(\.publish) == [.every(seconds: 0.2), .every(seconds: 0.2)])
    }

    @Test func loadsFromAFile() throws {
        let path = try RunFiles.scenario("scenario.yaml", minimalDevices)
        defer { RunFiles.removeFolder(of: path) }
        // The real registry may still be empty on this branch; what matters is the file was read.
        do {
            let scenario = try ScenarioLoader.load(file: path, environment: [:])
            #expect(scenario.file == path)
        } catch {
            #expect(error.diagnostics.allSatisfy { $0.file == path && $0.line > 1 })
        }
    }
}
