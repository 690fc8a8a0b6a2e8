import MQTT
import Testing
@testable import Scenario

/// `tls.alpn` (issue 27): a list or one name, each 1 to 255 bytes, as the wire format's length
/// byte allows; anything else is refused at its place.
@Suite struct ALPNLoadingTests {
    @Test func aListOrOneName() throws {
        #expect(
            try load("broker: { tls: { alpn: [x-amzn-mqtt-ca, mqtt] } }\n" + minimalDevices).broker.tls?.alpn == ["x-amzn-mqtt-ca", "mqtt"])
        #expect(try load("broker: { tls: { alpn: x-amzn-mqtt-ca } }\n" + minimalDevices).broker.tls?.alpn == ["x-amzn-mqtt-ca"])
        #expect(try load("broker: { tls: { insecure: true } }\n" + minimalDevices).broker.tls?.alpn == [])
        let verifier = "verify: { tls: { alpn: [mqtt] } }\n"
        #expect(try load(verifier + minimalDevices).verify?.tls?.alpn == ["mqtt"])
    }

    @Test func anEmptyOrOverLongNameIsRefusedAtItsPlace() {
        #expect(
            problems("broker: { tls: { alpn: [mqtt, \"\"] } }\n" + minimalDevices) == [
                "test.yaml:1:31: expected a protocol name of 1 to 255 bytes for 'alpn' (such as x-amzn-mqtt-ca), found the string \"\""
            ])
        let long = String(repeating: "a", count: 256)
        #expect(
            problems("broker:\n  tls:\n    alpn: \(long)\n" + minimalDevices) == [
                "test.yaml:3:11: expected a protocol name of 1 to 255 bytes for 'alpn' (such as x-amzn-mqtt-ca), found '\(long.prefix(100))… (256 characters)'"
            ])
        #expect(
            problems("broker: { tls: { alpn: [[a]] } }\n" + minimalDevices) == [
                "test.yaml:1:25: expected text for 'alpn', found a list"
            ])
    }
}
