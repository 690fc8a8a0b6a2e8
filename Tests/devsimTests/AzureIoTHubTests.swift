import Foundation
import Testing
import TestSupport

/// Issue 27, item 3: devices on Azure IoT Hub, against a scripted server standing in for the hub
/// (plain TCP: a host other than the hub is a stand-in, whose TLS is as written). What the server
/// receives is checked against Microsoft's algorithm computed without devsim's code
/// (`AzureSASReference`: openssl's HMAC, base64, Foundation's URL-encoding).
@Suite(.tags(.integration), .notUnitOnly) struct AzureIoTHubTests {
    static let hub = "devsim-test.azure-devices.net"
    static let groupKey = "8isrFI1sGsIlvvFSSFRiMfCNzv21fjbE/+ah/lSh3lF8e2YG1Te7w1KpZhJFFXJrqYKi9yegxkqIChbqOS9Egw=="

    static func scenario(key: String, lifetime: String) -> String {
        """
        name: azure
        broker:
          azureIoTHub: { hub: \(hub), \(key), tokenLifetime: \(lifetime) }
        devices:
          - name: thermo
            id: "thermo-{index}"
            topic: "devices/{id}/messages/events/$.ct=application%2Fjson&$.ce=utf-8"
            publish: 1/s
            qos: 1
            payload:
              style: flat
              fields:
                setTemperature: { constant: 21, command: set }
        """
    }

    /// `se` of a token: its expiry, seconds since the epoch.
    static func expiry(of token: String) -> Int64? {
        token.split(separator: "&").first { $0.hasPrefix("se=") }.flatMap { Int64($0.dropFirst(3)) }
    }

    @Test func aDeviceConnectsAsItselfWithATokenSignedByItsDerivedKeyAndAnswersDirectMethods() throws {
        let server = try ScriptedMQTTServer(
            script: .init(publishAfterSubscribe: { filter in
                switch filter {
                case "devices/thermo-1/messages/devicebound/#":
                    [
                        (
                            "devices/thermo-1/messages/devicebound/%24.to=%2Fdevices%2Fthermo-1%2Fmessages%2FdeviceBound",
                            Array("{\"setTemperature\": 19}".utf8)
                        )
                    ]
                case "$iothub/methods/POST/#":
                    [
                        ("$iothub/methods/POST/setTemperature/?$rid=42", Array("25".utf8)),
                        ("$iothub/methods/POST/openWindow/?$rid=43", Array("true".utf8)),
                    ]
                default: []
                }
            }))
        let file = try RunFiles.scenario("azure.yaml", Self.scenario(key: "groupKey: \"\(Self.groupKey)\"", lifetime: "1h"))
        defer { RunFiles.removeFolder(of: file) }
        let before = Int64(Date().timeIntervalSince1970)
        let devsim = try ServedRun(file: file, brokerPort: server.port)
        let answered = server.waitUntil(timeout: 30) { _, publishes in
            publishes.contains { $0.topic == "$iothub/methods/res/200/?$rid=42" }
                && publishes.contains { $0.topic == "$iothub/methods/res/404/?$rid=43" }
        }
        let after = Int64(Date().timeIntervalSince1970)
        let result = try #require(try devsim.stop(timeout: 30), "\(devsim.log)")
        #expect(answered, "both methods answered: \(server.publishes.map(\.topic))\n\(devsim.log)")
        let connect = try #require(server.connections.first?.connect)
        #expect(connect.clientID == "thermo-1")
        #expect(connect.username == "\(Self.hub)/thermo-1/?api-version=2021-04-12")
        #expect(connect.protocolLevel == 4, "MQTT 3.1.1")
        let token = try #require(connect.passwordText)
        let se = try #require(Self.expiry(of: token), "\(token)")
        #expect(
            se >= before + 3600 - 5 && se <= after + 3600 + 5,
            "valid an hour from the connect: se \(se), connected between \(before) and \(after)")
        // The device's key is derived from the group's as DPS does, by openssl here.
        let deviceKey = try AzureSASReference.mac(base64Key: Self.groupKey, message: "thermo-1")
        #expect(token == (try AzureSASReference.token(resource: "\(Self.hub)/devices/thermo-1", base64Key: deviceKey, expiry: se)))
        #expect(!devsim.log.contains(token) && !devsim.log.contains(deviceKey) && !devsim.log.contains(Self.groupKey), "no secret logged")
        #expect(Set(server.connections[0].subscriptions) == ["devices/thermo-1/messages/devicebound/#", "$iothub/methods/POST/#"])
        let reply = try #require(server.publishes.first { $0.topic == "$iothub/methods/res/200/?$rid=42" })
        #expect(reply.payloadText.contains("\"setTemperature\":25"), "answered with the state: \(reply.payloadText)")
        // The cloud-to-device message set the field before the method: the state said then.
        #expect(
            server.publishes.contains {
                $0.topic.hasPrefix("devices/thermo-1/messages/events/") && $0.payloadText.contains("\"setTemperature\":19")
            },
            "\(server.publishes.map(\.payloadText))")
        let report = try devsim.report(result)
        #expect(report["reconnects"] as? Int == 0 && report["tokenRenewals"] as? Int == 0, "\(report)")
        let json = String(decoding: try JSONSerialization.data(withJSONObject: report), as: UTF8.self)
        #expect(!json.contains("SharedAccessSignature") && !json.contains(deviceKey), "no secret in the report")
    }

    /// The token is renewed before it expires: a clean DISCONNECT, and at once a new CONNECT with a
    /// later `se`, counted as a renewal and neither a loss nor a reconnect.
    @Test func theTokenIsRenewedByAPlannedReconnect() throws {
        let server = try ScriptedMQTTServer()
        let key = "ZGV2c2ltIHRlc3Qga2V5IGZvciBhIHNpbmdsZSBkZXZpY2U"  // unpadded on purpose
        let file = try RunFiles.scenario("azure.yaml", Self.scenario(key: "deviceKey: \(key)", lifetime: "10s"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try ServedRun(file: file, brokerPort: server.port)
        // A message on the second connection: devsim publishes only after its CONNACK, so the
        // renewal is counted by then.
        let renewed = server.waitUntil(timeout: 60) { _, publishes in publishes.contains { $0.attempt == 2 } }
        let result = try #require(try devsim.stop(timeout: 30), "\(devsim.log)")
        #expect(renewed, "a second connection: \(server.connections)\n\(devsim.log)")
        let connections = server.connections
        try #require(connections.count >= 2)
        #expect(connections[0].closeReason == .clientDisconnected, "a clean DISCONNECT first")
        let first = try #require(connections[0].connect?.passwordText)
        let second = try #require(connections[1].connect?.passwordText)
        let (firstExpiry, secondExpiry) = (try #require(Self.expiry(of: first)), try #require(Self.expiry(of: second)))
        #expect(secondExpiry > firstExpiry, "a new token: \(firstExpiry), then \(secondExpiry)")
        #expect(second == (try AzureSASReference.token(resource: "\(Self.hub)/devices/thermo-1", base64Key: key, expiry: secondExpiry)))
        let report = try devsim.report(result)
        #expect(report["tokenRenewals"] as? Int == 1, "\(report)")
        #expect(report["reconnects"] as? Int == 0, "no loss: \(report)")
    }

    /// A renewal while messages await their PUBACK: its DISCONNECT waits for them and goes out
    /// from within the last one's callback, so libmosquitto writes it, and reports the close,
    /// from its loop's write, holding a lock that `mosquitto_connect_async` takes (2.0.11). The
    /// connection is made again on the loop's next turn: made from within that report, the
    /// loop's thread hung for good.
    @Test func aRenewalWhileMessagesAwaitTheirAcknowledgementConnectsAgain() throws {
        // 10 messages a second, each acknowledged half a second later: some are always in flight.
        let server = try ScriptedMQTTServer(script: .init(ackDelay: { _ in 0.5 }))
        let key = "ZGV2c2ltIHRlc3Qga2V5IGZvciBhIHNpbmdsZSBkZXZpY2U"
        let file = try RunFiles.scenario(
            "azure.yaml",
            Self.scenario(key: "deviceKey: \(key)", lifetime: "10s").replacingOccurrences(of: "publish: 1/s", with: "publish: 10/s"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try ServedRun(file: file, brokerPort: server.port)
        let renewed = server.waitUntil(timeout: 60) { _, publishes in publishes.contains { $0.attempt == 2 } }
        let result = try #require(try devsim.stop(timeout: 30), "\(devsim.log)")
        #expect(renewed, "a second connection: \(server.connections)\n\(devsim.log)")
        #expect(server.connections.first?.closeReason == .clientDisconnected, "a clean DISCONNECT first")
        let report = try devsim.report(result)
        #expect(report["tokenRenewals"] as? Int == 1 && report["reconnects"] as? Int == 0, "\(report)")
    }
}
