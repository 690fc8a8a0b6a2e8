import MQTT
import Report
import Scenario
import Simulator
import Testing
import TestSupport

/// Issue 26, item 3: what a run asks that its plan must allow, checked in-process with the
/// messages the command line gives (exit 2).
@Suite struct RunChecksTests {
    private static let meter = ScenarioText(group: "meter", topic: "m/{index}", publish: "1/s").text
    private static let screens = """
        subscribers:
          - { name: screens, topics: "m/#" }
        """

    /// The sentence `checks` refuses a run of `yaml` with, or `nil` when it allows it.
    private func problem(_ yaml: String, _ checks: RunChecks = RunChecks(), settings: RunSettings = RunSettings()) throws -> String? {
        let plan = try plan(yaml: yaml, settings: settings)
        do throws(RunCheckError) {
            try checks.check(plan, settings: settings)
            return nil
        } catch {
            return error.message
        }
    }

    private func settings(messages: Int? = nil, verify: Bool = false, timeline: Bool = true) -> RunSettings {
        var settings = RunSettings(messages: messages)
        settings.verify = verify
        if !timeline { settings.timelineInterval = nil }
        return settings
    }

    @Test func aPlanWithNothingAskedOfItPasses() throws {
        #expect(try problem(Self.meter) == nil)
        #expect(try problem(Self.meter, settings: settings(messages: 10, verify: true)) == nil)
        #expect(try problem(Self.meter, RunChecks(expectations: [try Assertion("published>=1")])) == nil)
    }

    @Test func aPasswordWithoutAUserNameIsRefused() throws {
        let yaml = "broker: { host: mq.example, port: 1884, password: secret }\n" + Self.meter
        let refusal =
            "a password but no user name for mq.example:1884: MQTT sends a password only with a user name; "
            + "set broker.username, --username or DEVSIM_USERNAME"
        #expect(try problem(yaml) == refusal)
        #expect(try problem(yaml, RunChecks(dryRun: true)) == refusal, "a dry run too")
        #expect(throws: RunCheckError(refusal)) { try RunChecks.checkCredentials(try plan(yaml: yaml)) }
        #expect(try problem(yaml.replacingOccurrences(of: "password:", with: "username: u, password:")) == nil)
    }

    /// Issue 27, item 3: the command line's credentials and `--verify` do not go with
    /// `broker.azureIoTHub`, which sets each device's, and whose hub lets no client read telemetry.
    @Test func azureIoTHubTakesNoCredentialsNorVerifyFromTheCommandLine() throws {
        let yaml = "broker: { azureIoTHub: { hub: h.azure-devices.net, deviceKey: ZGV2c2lt } }\n" + Self.meter
        #expect(try problem(yaml) == nil)
        var named = RunSettings()
        named.username = "u"
        #expect(try problem(yaml, settings: named)?.contains("sets each device's user name and SAS token: leave out --username") == true)
        #expect(try problem(yaml, settings: settings(verify: true))?.contains("leave out --verify") == true)
    }

    /// Issue 38, item 7: `--protocol mqtt5` left the file's `protocol:` unread and connected with
    /// 3.1.1 all the same, unsaid; refused as `protocol: mqtt5` in the file is.
    @Test func azureIoTHubTakesNoOtherProtocolFromTheCommandLine() throws {
        let yaml = "broker: { azureIoTHub: { hub: h.azure-devices.net, deviceKey: ZGV2c2lt } }\n" + Self.meter
        var settings = RunSettings()
        settings.mqttProtocol = .v5
        #expect(
            try problem(yaml, settings: settings)
                == "test.yaml: broker.azureIoTHub speaks MQTT 3.1.1, Azure IoT Hub's (its MQTT 5 is a preview with other topics): "
                + "leave out --protocol mqtt5 (DEVSIM_PROTOCOL)")
        settings.mqttProtocol = .v311
        #expect(try problem(yaml, settings: settings) == nil)
    }

    /// Issue 29: an Azure IoT hub is one host, which a `--url` list would not be.
    @Test func azureIoTHubTakesNoListOfURLs() throws {
        let yaml = "broker: { azureIoTHub: { hub: h.azure-devices.net, deviceKey: ZGV2c2lt } }\n" + Self.meter
        var listed = RunSettings()
        listed.hosts = BrokerHosts(entries: [.init(host: "a", port: 8883), .init(host: "b", port: 8883)], scheme: .mqtts)
        #expect(
            try problem(yaml, settings: listed)?.hasSuffix(
                "broker.azureIoTHub connects to the hub, one host: --url takes one URL for it, not a list") == true)
    }

    @Test func aDryRunOfAPublishMaxGroupNeedsAMessageCount() throws {
        let yaml = Self.meter.replacingOccurrences(of: "publish: 1/s", with: "publish: max")
        #expect(
            try problem(yaml, RunChecks(dryRun: true))
                == "device group 'meter' publishes at max, which a dry run can only show a number of: add --messages N")
        #expect(try problem(yaml, RunChecks(dryRun: true), settings: settings(messages: 5)) == nil)
        #expect(try problem(yaml) == nil, "a run has a broker to set the pace")
    }

    @Test func messagesAndVerifyNeedDevices() throws {
        #expect(
            try problem(Self.screens, settings: settings(messages: 10))
                == "--messages counts what the devices publish, and the scenarios have none (subscribers alone): use --duration")
        #expect(
            try problem(Self.screens, settings: settings(verify: true))
                == "--verify checks what the devices publish, and the scenarios have none (subscribers alone)")
        #expect(try problem(Self.screens) == nil)
    }

    @Test func verifyNeedsAMessagePerTickWithItsSequence() throws {
        let perField = Self.meter.replacingOccurrences(of: "payload: {", with: "payload: { style: perField,")
        #expect(
            try problem(perField, settings: settings(verify: true))
                == "--verify reads a sequence number out of each message, and device group 'meter' publishes each field "
                + "alone (style: perField): leave out --verify, or give the group another style")
        let onChange = Self.meter.replacingOccurrences(of: "publish: 1/s", with: "publish: 1/s\n    onChange: { fields: [seq] }")
        #expect(
            try problem(onChange, settings: settings(verify: true))
                == "--verify counts every tick's message, and device group 'meter' sends a tick only on a change "
                + "(onChange): leave out --verify, or publish the group at a rate")
        #expect(try problem(perField) == nil && problem(onChange) == nil, "without --verify")
        #expect(try problem(perField, RunChecks(dryRun: true), settings: settings(verify: true)) == nil, "a dry run verifies nothing")
    }

    @Test func anExpectationTheRunCannotJudgeIsRefused() throws {
        let checks = RunChecks(expectations: [try Assertion("p99<50ms"), try Assertion("lost==0")])
        #expect(
            try problem(Self.meter, checks)
                == "--expect: p99<50ms: latency is measured for QoS 1 and 2 acknowledgements, and every device publishes at QoS 0; "
                + "lost==0: lost is measured by the closed-loop check; add --verify")
        #expect(try problem(Self.meter, RunChecks(dryRun: true, expectations: checks.expectations)) == nil, "a dry run judges nothing")
    }

    @Test func aCSVReportNeedsTheTimeline() throws {
        let csv = RunChecks(reports: [ReportOutput(path: "out.json", format: .json), ReportOutput(path: "out.csv", format: .csv)])
        #expect(
            try problem(Self.meter, csv, settings: settings(timeline: false))
                == "--report out.csv is the timeline as CSV, which --timeline-interval 0 turns off")
        #expect(try problem(Self.meter, csv) == nil)
        #expect(
            try problem(
                Self.meter, RunChecks(reports: [ReportOutput(path: "out.json", format: .json)]), settings: settings(timeline: false))
                == nil)
    }
}
