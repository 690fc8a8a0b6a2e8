/// A loaded, validated scenario file.
public struct Scenario: Sendable {
    public var name: String
    /// The file it was loaded from, as given on the command line.
    public var file: String
    public var broker: BrokerSettings
    package var offline: OfflinePolicy
    public var groups: [DeviceGroup]
    /// `control.topic`: commands for the running fleet arrive here over MQTT.
    package var controlTopic: String?
    /// The load profile every group's rate follows (`stages:`); empty for the groups' own rates.
    public var stages: [Stage] = []
    /// The subscriber groups (`subscribers:`): connections of their own that count what the
    /// broker sends them.
    public var subscribers: [SubscriberGroup] = []
    /// The closed-loop check's own identity on the broker (`verify:`); `nil` for the devices'.
    package var verify: VerifierSettings?
    /// Where each setting that names a TLS file is written, by the setting's path
    /// (`broker.tls.ca`): for problems with the file itself, found when it is read before a run.
    package var fileLocations: [String: SourceLocation] = [:]

    package init(
        name: String, file: String, broker: BrokerSettings = .init(),
        offline: OfflinePolicy = .drop, groups: [DeviceGroup]
    ) {
        self.name = name
        self.file = file
        self.broker = broker
        self.offline = offline
        self.groups = groups
    }
}
