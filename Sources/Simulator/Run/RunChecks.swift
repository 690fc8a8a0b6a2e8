import MQTT
import Report
import Scenario

/// What the command line asks of a run that its plan must allow, checked before anything
/// connects: a run that could not do what it was asked is refused (exit 2) in a sentence that
/// says what to change, rather than failed, or passed on a figure never measured, after it.
/// Here rather than in the command line, so that every check is tested in-process.
public struct RunChecks: Sendable {
    /// `--dry-run`: nothing is measured, so only what the dry run itself needs is checked.
    public var dryRun = false
    /// `--expect`.
    public var expectations: [Assertion] = []
    /// `--report`: each file, and the format it is written in.
    public var reports: [ReportOutput] = []

    public init(dryRun: Bool = false, expectations: [Assertion] = [], reports: [ReportOutput] = []) {
        self.dryRun = dryRun
        self.expectations = expectations
        self.reports = reports
    }

    /// The first problem of a run of `plan` with `settings`, thrown as the sentence the command
    /// line says; in the order a reader would fix them: credentials, then what the run measures.
    public func check(_ plan: FleetPlan, settings: RunSettings) throws(RunCheckError) {
        try Self.checkCredentials(plan)
        try Self.checkAzureIoTHub(plan, settings: settings)
        try Self.checkHosts(plan, settings: settings)
        if !dryRun { try Self.checkBindAddresses(plan, settings: settings) }
        let devices = plan.connections.lazy.flatMap(\.devices)
        if dryRun {
            if settings.messages == nil, let device = devices.first(where: { !$0.perSecond.isFinite }) {
                throw RunCheckError(
                    "device group '\(device.group)' publishes at max, which a dry run can only show "
                        + "a number of: add --messages N")
            }
            return
        }
        if settings.messages != nil, plan.fleetDeviceCount == 0 {
            throw RunCheckError(
                "--messages counts what the devices publish, and the scenarios have none (subscribers alone): use --duration")
        }
        if settings.verify,
            let scenario = plan.scenarios.first(where: { FleetPlan.devicesHaveOwnCertificates($0) && $0.verify?.tls == nil })
        {
            throw RunCheckError(
                "--verify subscribes on devsim's own connections, and each device of \(scenario.file) has its own certificate, which "
                    + "would make them that device: give the verifier one (verify: { tls: { certificate: …, key: … } })")
        }
        if settings.verify, plan.fleetDeviceCount == 0 {
            throw RunCheckError("--verify checks what the devices publish, and the scenarios have none (subscribers alone)")
        }
        if settings.verify, let device = devices.first(where: { $0.payload.style == .perField }) {
            throw RunCheckError(
                "--verify reads a sequence number out of each message, and device group '\(device.group)' publishes each field "
                    + "alone (style: perField): leave out --verify, or give the group another style")
        }
        if settings.verify, let device = devices.first(where: { $0.onChange != nil }) {
            throw RunCheckError(
                "--verify counts every tick's message, and device group '\(device.group)' sends a tick only on a change "
                    + "(onChange): leave out --verify, or publish the group at a rate")
        }
        if settings.verify, let device = devices.first(where: { $0.replay != nil }) {
            throw RunCheckError(
                "--verify reads a sequence number out of each message, and device group '\(device.group)' replays a recording, "
                    + "whose payloads carry none of devsim's: leave out --verify")
        }
        let unjudgeable = expectations.compactMap { $0.unjudgeableReason(plan: plan, verify: settings.verify) }
        guard unjudgeable.isEmpty else {
            throw RunCheckError("--expect: " + unjudgeable.joined(separator: "; "))
        }
        if let csv = reports.first(where: { $0.format == .csv }), settings.timelineInterval == nil {
            throw RunCheckError("--report \(csv.path) is the timeline as CSV, which --timeline-interval 0 turns off")
        }
    }

    /// `broker.azureIoTHub` sets each device's user name and password (its SAS token), and MQTT
    /// 3.1.1: the command line's would be thrown away, unsaid, as `protocol:` in the file is
    /// refused. And the hub lets a device subscribe to no other's telemetry, which `--verify` would.
    static func checkAzureIoTHub(_ plan: FleetPlan, settings: RunSettings) throws(RunCheckError) {
        guard let scenario = plan.scenarios.first(where: { $0.broker.azureIoTHub != nil }) else { return }
        if let version = settings.mqttProtocol, version != .v311 {
            throw RunCheckError(
                "\(scenario.file): broker.azureIoTHub speaks MQTT 3.1.1, Azure IoT Hub's (its MQTT 5 is a preview with other "
                    + "topics): leave out --protocol \(version.name) (DEVSIM_PROTOCOL)")
        }
        if settings.username != nil || settings.password != nil || settings.anonymous {
            throw RunCheckError(
                "\(scenario.file): broker.azureIoTHub sets each device's user name and SAS token: leave out --username, "
                    + "--password-file, --anonymous, DEVSIM_USERNAME and DEVSIM_PASSWORD")
        }
        if settings.verify {
            throw RunCheckError(
                "\(scenario.file): --verify subscribes to the devices' telemetry, which Azure IoT Hub does not let an MQTT client do "
                    + "(it routes device-to-cloud messages to its Event Hubs endpoint): leave out --verify")
        }
    }

    /// `--url` names the host and the port, which `--host` and `--port` would name again.
    public static func checkBroker(url: BrokerURL?, host: String?, port: Int?) throws(RunCheckError) {
        guard url != nil, host != nil || port != nil else { return }
        throw RunCheckError(
            "--url gives the host and the port: leave out \(host != nil ? "--host" : "--port") "
                + "(and DEVSIM_HOST, DEVSIM_PORT), or --url (DEVSIM_URL)")
    }

    /// libmosquitto refuses a password without a user name ("Invalid function arguments"): MQTT
    /// sends a password only beside one. Checked again by a reload, whose files may have changed.
    public static func checkCredentials(_ plan: FleetPlan) throws(RunCheckError) {
        if let connection = plan.connections.first(where: { $0.options.password != nil && $0.options.username == nil }) {
            throw RunCheckError(
                "a password but no user name for \(connection.options.host):\(connection.options.port): MQTT sends a password "
                    + "only with a user name; set broker.username, --username or DEVSIM_USERNAME")
        }
    }
}
