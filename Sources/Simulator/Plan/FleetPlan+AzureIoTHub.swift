import MQTT
import Scenario
import Signals
import Transport

/// Azure IoT Hub (`broker.azureIoTHub`): what the block makes of each device's connection and
/// commands.
extension FleetPlan {
    /// Device `id`'s options for the hub: client id its id, user name
    /// `<hub>/<id>/?api-version=<v>`, and no fixed password but a SAS token made at each connect
    /// (`sasToken`). `deviceKey` is the device's own key (base64) where one is given per device,
    /// over the block's `deviceKey` or `groupKey`. The hub's host, port 8883 and TLS with the
    /// system's trust, unless a host other than the hub is given (from the file, `--host` or
    /// `--url`): a stand-in broker for a rehearsal or a test, whose port and TLS are as given,
    /// as for any broker.
    static func azureIoTHub(
        _ azure: AzureIoTHub, into options: inout ClientOptions, scenario: Scenario, settings: RunSettings, id: String,
        deviceKey: String? = nil
    ) {
        options.clientID = id
        options.username = azure.username(id: id)
        options.password = nil
        options.protocolVersion = .v311
        options.keepalive = min(options.keepalive, AzureIoTHub.maximumKeepalive)
        let givenHost = settings.url?.host ?? settings.host ?? scenario.broker.host
        if givenHost.map(azure.isHub) ?? true {
            options.host = azure.hub
            options.port = Int32(settings.url?.port ?? settings.port ?? scenario.broker.port ?? AzureIoTHub.port)
            if options.tls == nil { options.tls = TLSSettings() }
        }
        // The loader checked the block's keys; a key given per device is checked where it is read
        // (`AzureIoTHub.keyProblem`). Either decodes here.
        let key: String? =
            switch (deviceKey, azure.key) {
            case (let key?, _), (nil, .device(let key)): key
            case (nil, .group(let groupKey)): SASToken.deriveDeviceKey(groupKey: groupKey, registrationID: id)
            }
        options.sasToken = key.flatMap(SASToken.decodeKey).map {
            SASTokenSource(resource: azure.resource(id: id), key: $0, lifetime: azure.tokenLifetime)
        }
    }

    /// Device `id`'s commands, implied by the block for a group with fields that take commands:
    /// cloud-to-device messages (a JSON object of fields to set) and direct methods (a method
    /// names the field, its payload the value), answered 200 with the state, 404 for a method
    /// that names no commanded field, 400 for a value refused.
    static func azureCommands(of group: DeviceGroup, id: String) -> CommandPlan? {
        guard hasCommandedField(group.payload.fields) else { return nil }
        var plan = CommandPlan(filter: "devices/\(id)/messages/devicebound/#")
        plan.also = [
            CommandPlan(
                filter: "$iothub/methods/POST/#", fieldLevel: 3, requestParameter: "$rid",
                response: "$iothub/methods/res/{status}/?$rid={requestId}")
        ]
        return plan
    }

    private static func hasCommandedField(_ fields: [FieldSpec]) -> Bool {
        fields.contains { $0.command != nil || $0.fields.map(hasCommandedField) == true }
    }
}
