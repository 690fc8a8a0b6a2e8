import MQTT
import Testing

@testable import Scenario

/// Issue 29, item 1: `broker.properties`, the MQTT 5 CONNECT properties, read with each mistake
/// named at its file, line and column. Whether the protocol is 5 is the plan's to check
/// (`ConnectPropertiesPlanTests`), since the command line may choose it.
@Suite struct ConnectPropertiesLoadingTests {
    static func scenario(_ properties: String) -> String {
        """
        broker:
          protocol: mqtt5
          properties: { \(properties) }
        devices:
          - name: meter
            topic: "plant/{id}"
            publish: 1/s
            payload: { fields: { power: { accelerometer: x } } }
        """
    }

    @Test func everyPropertyLoadsAndIsFilledPerConnection() throws {
        let text = Self.scenario(
            "sessionExpiry: 1h, receiveMaximum: 100, maximumPacketSize: 256KB, userProperties: { rack: \"{id}\", site: \"s-{index}\" }")
        let properties = try #require(try load(text).broker.properties)
        #expect(properties.location == SourceLocation(file: "test.yaml", line: 3, column: 15))
        #expect(properties.receiveMaximum == 100)
        let filled = properties.render(name: "meter", index: 2, id: "meter-2")
        #expect(filled.sessionExpiry == 3600)
        #expect(filled.maximumPacketSize == UInt32(262_144))
        #expect(filled.userProperties == [UserProperty(name: "rack", value: "meter-2"), UserProperty(name: "site", value: "s-2")])
        #expect(try load(Self.scenario("sessionExpiry: 0s")).broker.properties?.render(name: "m", index: 1, id: "m-1").sessionExpiry == 0)
    }

    @Test func badValuesAreNamedWhereTheyStand() {
        #expect(
            problems(Self.scenario("sessionExpiry: 1.5s")) == [
                "test.yaml:3:32: expected whole seconds from 0s to 4294967295s (never expires) for 'sessionExpiry', found '1.5s'"
            ])
        #expect(problems(Self.scenario("receiveMaximum: 0")).first?.contains("for 'receiveMaximum'") == true)
        #expect(problems(Self.scenario("receiveMaximum: 65536")).first?.contains("for 'receiveMaximum'") == true)
        #expect(
            problems(Self.scenario("maximumPacketSize: 10B")).first?.hasPrefix(
                "test.yaml:3:36: expected from 64 bytes to 4294967295 bytes for 'maximumPacketSize', found '10B'") == true)
        #expect(problems(Self.scenario("maximumPacketSize: 5GB")).first?.contains("for 'maximumPacketSize'") == true)
        #expect(
            problems(Self.scenario("sesionExpiry: 1h")) == [
                "test.yaml:3:17: unknown key 'sesionExpiry' in 'broker.properties'; did you mean 'sessionExpiry'?"
            ])
        #expect(
            problems(Self.scenario("userProperties: { rack: \"{indx}\" }")) == [
                "test.yaml:3:41: unknown placeholder '{indx}' in 'rack'; did you mean '{index}'?"
            ])
    }
}
