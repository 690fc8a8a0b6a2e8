import MQTT
import Scenario
import Testing

@testable import Simulator

/// Issue 27, item 3: what `broker.azureIoTHub` makes of each device's connection.
@Suite struct AzureIoTHubPlanTests {
    static let yaml = """
        broker:
          azureIoTHub: { hub: contoso.azure-devices.net, groupKey: ZGV2c2lt, tokenLifetime: 2h }
        devices:
          - name: t
            count: 2
            topic: "devices/{id}/messages/events/"
            publish: 1/s
            payload: { fields: { v: { constant: 1 } } }
        """

    @Test func eachDeviceConnectsToTheHubAsItselfOverTLSWithATokenMadeAtConnect() throws {
        let connections = try plan(yaml: Self.yaml).connections
        #expect(connections.map(\.options.clientID) == ["t-1", "t-2"])
        let options = connections[1].options
        #expect(options.host == "contoso.azure-devices.net" && options.port == 8883 && options.tls == TLSSettings(), "the system's trust")
        #expect(options.username == "contoso.azure-devices.net/t-2/?api-version=2021-04-12")
        #expect(options.protocolVersion == .v311 && options.password == nil, "no fixed password: a token at each connect")
        let token = try #require(options.sasToken)
        #expect(token.resource == "contoso.azure-devices.net/devices/t-2" && token.lifetime == .seconds(7200))
        // The group key derives each device's (the known answer is SASTokenTests').
        #expect(token.key.count == 32 && connections[0].options.sasToken?.key != token.key)
        #expect(!"\(token)".contains("\(token.key)") && "\(token)" == "SAS token for contoso.azure-devices.net/devices/t-2, valid 7200 s")
    }

    /// A host other than the hub is a stand-in broker (a rehearsal, a test): port and TLS as for
    /// any broker. The hub's own name keeps the hub's.
    @Test func aHostOtherThanTheHubIsAStandIn() throws {
        let standIn = try plan(yaml: Self.yaml, settings: RunSettings(host: "127.0.0.1")).connections[0].options
        #expect(standIn.host == "127.0.0.1" && standIn.port == 1883 && standIn.tls == nil)
        #expect(standIn.sasToken != nil && standIn.clientID == "t-1")
        let hub = try plan(yaml: Self.yaml, settings: RunSettings(host: "CONTOSO.azure-devices.net")).connections[0].options
        #expect(hub.host == "contoso.azure-devices.net" && hub.port == 8883 && hub.tls == TLSSettings())
    }

    /// The one line a per-device key source wires: a device's own key over the block's.
    @Test func aDevicesOwnKeyWinsOverTheBlocks() throws {
        let scenario = try ScenarioLoader.load(text: Self.yaml, file: "t.yaml", environment: [:])
        let azure = try #require(scenario.broker.azureIoTHub)
        var options = ClientOptions(host: "", port: 0, cleanSession: true, keepalive: .seconds(60), protocolVersion: .v5, maxInFlight: 16)
        FleetPlan.azureIoTHub(azure, into: &options, scenario: scenario, settings: RunSettings(), id: "t-1", deviceKey: "ZGV2c2ltIQ")
        #expect(options.sasToken?.key == Array("devsim!".utf8) && options.protocolVersion == .v311)
    }
}
