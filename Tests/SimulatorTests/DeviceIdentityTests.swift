import Foundation
import MQTT
import Scenario
import Simulator
import Testing
import TestSupport

/// Each device's identity as the plan makes it: templates filled per device, a credentials file's
/// rows, and what keeps a fleet from starting (without a broker).
@Suite struct DeviceIdentityTests {
    /// A folder for one test's files, removed at the end.
    private final class Folder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-identity-\(UUID().uuidString)").path

        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        func write(_ name: String, _ text: String) throws -> String {
            try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
            return path + "/" + name
        }

        func load(_ broker: String, devices: String = Folder.devices) throws -> Scenario {
            let file = try write("scenario.yaml", "broker:\n" + broker + "\n" + devices)
            return try ScenarioLoader.load(file: file, environment: [:])
        }

        /// The diagnostics of a scenario that must fail to load.
        func problems(_ broker: String, devices: String = Folder.devices) throws -> [String] {
            let file = try write("scenario.yaml", "broker:\n" + broker + "\n" + devices)
            do throws(ScenarioError) {
                _ = try ScenarioLoader.load(file: file, environment: [:])
                return ["loaded without errors"]
            } catch {
                return error.diagnostics.map(\.description)
            }
        }

        static let devices = """
            devices:
              - name: thing
                count: 3
                id: "thing-{index}"
                topic: "things/{id}"
                publish: 1/s
                payload:
                  fields:
                    v: { counter: 0 }
            """
    }

    private func options(_ scenario: Scenario, settings: RunSettings = RunSettings()) -> [ClientOptions] {
        FleetPlan(scenarios: [scenario], settings: settings).connections.map(\.options)
    }

    @Test func userNamesPasswordsCertificatesAndKeysAreFilledPerDevice() throws {
        let folder = try Folder()
        let scenario = try folder.load(
            """
              username: "{id}"
              password: "pw-{name}-{index}"
              tls: { certificate: "certs/{id}.pem", key: "certs/{id}.key" }
            """)
        let made = options(scenario)
        #expect(made.map(\.username) == ["thing-1", "thing-2", "thing-3"])
        #expect(made.map(\.password) == ["pw-thing-1", "pw-thing-2", "pw-thing-3"])
        #expect(made.map(\.tls?.certificate) == (1...3).map { "\(folder.path)/certs/thing-\($0).pem" })
        #expect(made.map(\.tls?.key) == (1...3).map { "\(folder.path)/certs/thing-\($0).key" })
    }

    @Test func aCredentialsRowWinsOverTheTemplateAndAnEmptyCellLeavesIt() throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(atPath: folder.path + "/keys", withIntermediateDirectories: true)
        _ = try folder.write(
            "keys/devices.csv",
            """
            id,username,password,token,certificate,key
            thing-1,alice,"p,w \"\"1\"\"",t1,a.pem,/abs/a.key
            thing-2,,,t2,,
            thing-3,carol,,t3,,

            """)
        let scenario = try folder.load(
            """
              username: "{token}"
              password: "pw-{id}"
              tls: { certificate: "certs/{id}.pem", key: "certs/{id}.key" }
              credentials: keys/devices.csv
            """)
        let made = options(scenario)
        #expect(made.map(\.username) == ["alice", "t2", "carol"])
        #expect(made.map(\.password) == ["p,w \"1\"", "pw-thing-2", "pw-thing-3"])
        // A path in the file is the file's folder's.
        #expect(made[0].tls?.certificate == folder.path + "/keys/a.pem")
        #expect(made[0].tls?.key == "/abs/a.key")
        #expect(made[1].tls?.certificate == folder.path + "/certs/thing-2.pem")
        // The command line's user name and password are every device's.
        var settings = RunSettings()
        settings.username = "ops-{index}"
        settings.password = "secret"
        let overridden = options(scenario, settings: settings)
        #expect(overridden.map(\.username) == ["ops-1", "ops-2", "ops-3"])
        #expect(overridden.map(\.password) == ["secret", "secret", "secret"])
    }

    @Test func aCredentialsFileThatCannotServeIsNamedByLine() throws {
        let folder = try Folder()
        let csv = try folder.write(
            "devices.csv",
            """
            id,usrname,password,password
            thing-1,a,b
            thing-2,a,"two
            lines",c
            thing-2,a,b,c
            ,a,b,c

            """)
        #expect(
            try folder.problems("  credentials: devices.csv") == [
                "\(csv):1:1: unknown column 'usrname': did you mean 'username'?",
                "\(csv):1:1: the column 'password' is given twice",
                "\(csv):2:1: expected 4 fields, as the header has, found 3",
                "\(csv):5:1: the device 'thing-2' has a row already, on line 3",
                "\(csv):6:1: this row has no id",
            ])
        _ = try folder.write("noid.csv", "name,username\nthing-1,a\n")
        #expect(
            try folder.problems("  credentials: noid.csv").contains(
                "\(folder.path)/noid.csv:1:1: unknown column 'name': expected 'id', 'username', 'password', 'certificate', 'key', 'token', 'deviceKey'"
            ))
        #expect(
            try folder.problems("  credentials: noid.csv").contains(
                "\(folder.path)/noid.csv:1:1: expected an 'id' column, which names each row's device"))
        // Issue 38, item 15: a shortened column name is hinted at too.
        _ = try folder.write("short.csv", "id,user,pass\nthing-1,a,b\n")
        #expect(
            try folder.problems("  credentials: short.csv") == [
                "\(folder.path)/short.csv:1:1: unknown column 'user': did you mean 'username'?",
                "\(folder.path)/short.csv:1:1: unknown column 'pass': did you mean 'password'?",
            ])
        #expect(
            try folder.problems("  credentials: missing.csv") == [
                "\(folder.path)/scenario.yaml:2:16: cannot read the credentials file '\(folder.path)/missing.csv': no such file or directory"
            ])
    }

    /// A quote out of place is named where it stands, not left to swallow the rows after it
    /// (found by review).
    @Test func aQuoteOutOfPlaceIsNamedAtItsLineAndColumn() throws {
        let folder = try Folder()
        let csv = try folder.write("quotes.csv", "id,username,password\nthing-1,ab\"c,p\nthing-2,\"u2,p2\nthing-3,u3,p3\n")
        let found = try folder.problems("  credentials: quotes.csv")
        #expect(found.contains("\(csv):2:11: a quote inside a field that does not start with one"), "\(found)")
        let unclosed = try folder.write("unclosed.csv", "id,username\nthing-1,\"u1\nthing-2,u2\n")
        #expect(
            try folder.problems("  credentials: unclosed.csv").first
                == "\(unclosed):2:9: a quote opened here is never closed, and takes in the rest of the file")
    }

    @Test func aDeviceTheFileLacksIsNamed() throws {
        let folder = try Folder()
        _ = try folder.write("devices.csv", "id,password\nthing-2,x\n")
        let plan = FleetPlan(scenarios: [try folder.load("  credentials: devices.csv")], settings: RunSettings())
        let place = "\(folder.path)/scenario.yaml:2:16: '\(folder.path)/devices.csv' has no row"
        #expect(
            plan.conflicts.map(\.description) == [
                "\(place) for device 'thing-1' (group 'thing')", "\(place) for device 'thing-3' (group 'thing')",
            ])
        // A fleet of more names its first ten, and counts the rest.
        let many = FleetPlan(
            scenarios: [
                try folder.load(
                    "  credentials: devices.csv", devices: Folder.devices.replacingOccurrences(of: "count: 3", with: "count: 25"))
            ],
            settings: RunSettings())
        #expect(many.conflicts.count == 11)
        #expect(many.conflicts.last?.description == "\(place) for 14 more devices")
    }

    /// A reload of an unchanged scenario leaves its connections alone: a group's fingerprint
    /// does not hang on the order a dictionary of rows happens to keep (found by review: every
    /// reload with a credentials file restarted every connection).
    @Test func aCredentialsFileReadTwiceIsTheSameGroup() throws {
        let folder = try Folder()
        let rows = (1...40).map { "thing-\($0),u\($0),p\($0),t\($0)\n" }.joined()
        _ = try folder.write("devices.csv", "id,username,password,token\n" + rows)
        let devices = Folder.devices.replacingOccurrences(of: "count: 3", with: "count: 40")
        let first = try folder.load("  credentials: devices.csv", devices: devices)
        let second = try folder.load("  credentials: devices.csv", devices: devices)
        // Compared apart from the expectation, whose message would print the whole dump.
        let same = GroupPlan(group: first.groups[0], in: first) == GroupPlan(group: second.groups[0], in: second)
        #expect(same)
    }

    @Test func aTokenComesFromACredentialsFile() throws {
        let folder = try Folder()
        #expect(
            try folder.problems("  username: \"{token}\"") == [
                "\(folder.path)/scenario.yaml:2:13: '{token}' in 'username' is each device's token from a credentials file: give 'credentials' too"
            ])
        _ = try folder.write("devices.csv", "id,token\nthing-1,a\nthing-2,\nthing-3,c\n")
        let plan = FleetPlan(scenarios: [try folder.load("  username: \"{token}\"\n  credentials: devices.csv")], settings: RunSettings())
        #expect(
            plan.conflicts.map(\.description) == [
                "\(folder.path)/scenario.yaml:3:16: '\(folder.path)/devices.csv' has no 'token', which '{token}' takes, for device 'thing-2' (group 'thing')"
            ])
    }

    @Test func aSharedConnectionCannotCarryIdentitiesThatDifferByDevice() throws {
        let folder = try Folder()
        let shared = Folder.devices + "\n    connection: { shared: 1 }\n"
        let plan = FleetPlan(scenarios: [try folder.load("  password: \"pw-{id}\"", devices: shared)], settings: RunSettings())
        #expect(plan.conflicts.count == 1)
        #expect(plan.conflicts.first?.message.contains("'broker.password' differs from device to device") == true)
        // One identity for all is fine.
        let one = FleetPlan(scenarios: [try folder.load("  password: \"pw-{name}\"", devices: shared)], settings: RunSettings())
        #expect(one.conflicts.isEmpty)
    }

    /// Azure IoT Hub: a device's own key from the file is the one its tokens are signed with;
    /// the block's key signs for the others.
    @Test func anAzureDeviceKeyFromTheCredentialsFile() throws {
        let folder = try Folder()
        // base64 of "key-one" and "the block's".
        _ = try folder.write("devices.csv", "id,deviceKey\nthing-1,a2V5LW9uZQ==\nthing-2,\nthing-3,\n")
        let scenario = try folder.load(
            "  credentials: devices.csv\n  azureIoTHub: { hub: h.azure-devices.net, deviceKey: dGhlIGJsb2NrJ3M= }")
        let keys = options(scenario).map { $0.sasToken.map { String(decoding: $0.key, as: UTF8.self) } }
        #expect(keys == ["key-one", "the block's", "the block's"])
        _ = try folder.write("bad.csv", "id,deviceKey\nthing-1,not base64!\n")
        #expect(
            try folder.problems("  credentials: bad.csv\n  azureIoTHub: { hub: h.azure-devices.net, deviceKey: dGhlIGJsb2NrJ3M= }").first?
                .hasPrefix("\(folder.path)/bad.csv:2:1: the device 'thing-1' has a 'deviceKey' that is not base64: ") == true)
        let plain = FleetPlan(scenarios: [try folder.load("  credentials: devices.csv")], settings: RunSettings())
        #expect(
            plain.conflicts.map(\.message).contains { $0.hasSuffix("gives Azure IoT Hub device keys, for a broker without 'azureIoTHub'") })
    }

    @Test func aSubscriberGroupHasItsOwnUserOrTheBrokersFilledWithItsClientID() throws {
        let folder = try Folder()
        let subscribers = """

            subscribers:
              - name: dash
                count: 2
                topics: ["things/#"]
                username: "viewer-{index}"
                password: "pw-{id}"
              - name: plain
                topics: ["things/#"]
            """
        let scenario = try folder.load("  username: \"{id}\"\n  password: \"pw-{id}\"", devices: Folder.devices + subscribers)
        var settings = RunSettings()
        settings.username = "ops"
        let members = FleetPlan(scenarios: [scenario], settings: settings).subscribers.flatMap(\.members).map(\.options)
        #expect(members.map(\.username) == ["viewer-1", "viewer-2", "ops"])
        #expect(members.map(\.password) == ["pw-dash-1", "pw-dash-2", "pw-plain-1"])
        #expect(
            try folder.problems(
                "  host: h", devices: Folder.devices + subscribers.replacingOccurrences(of: "    username: \"viewer-{index}\"\n", with: "")
            ).count == 1)
    }

    /// devsim's own connections must not borrow a device's certificate, which would make them
    /// that device (found by review): the control topic's and `--verify`'s need the verifier's.
    @Test func devsimsOwnConnectionsNeedTheirOwnCertificate() throws {
        let folder = try Folder()
        let broker = "  tls: { certificate: \"{id}.pem\", key: \"{id}.key\" }\ncontrol: { topic: ctl }"
        let plan = FleetPlan(scenarios: [try folder.load(broker)], settings: RunSettings())
        #expect(plan.conflicts.map(\.message).contains { $0.hasPrefix("the control topic is read on devsim's own connection") })
        let own = FleetPlan(
            scenarios: [try folder.load(broker + "\nverify: { tls: { certificate: v.pem, key: v.key } }")], settings: RunSettings())
        #expect(own.conflicts.isEmpty)
        var settings = RunSettings()
        settings.verify = true
        let verified = FleetPlan(
            scenarios: [try folder.load("  tls: { certificate: \"{id}.pem\", key: \"{id}.key\" }")], settings: settings)
        #expect(throws: RunCheckError.self) { try RunChecks().check(verified, settings: settings) }
    }

    /// A subscriber group is the broker's user unless it has its own: a `{token}` it has none for
    /// is an error, not a connection as the user '{token}' (found by review).
    @Test func aSubscriberWithoutATokenNeedsItsOwnUser() throws {
        let folder = try Folder()
        _ = try folder.write("devices.csv", "id,token\nthing-1,a\nthing-2,b\nthing-3,c\n")
        let subscribers = "\nsubscribers:\n  - name: dash\n    topics: [\"things/#\"]\n"
        let plan = FleetPlan(
            scenarios: [try folder.load("  username: \"{token}\"\n  credentials: devices.csv", devices: Folder.devices + subscribers)],
            settings: RunSettings())
        #expect(
            plan.conflicts.map(\.message) == [
                "subscriber group 'dash' connects as the broker's user, '{token}', and its connection 'dash-1' has no token in the "
                    + "credentials file: give the group a 'username' of its own"
            ])
    }

    @Test func theVerifiersTLSIsOneConnectionsWithNoDeviceToFill() throws {
        let folder = try Folder()
        #expect(
            try folder.problems("  tls: { ca: ca.pem }\nverify:\n  tls: { certificate: \"{id}.pem\", key: v.key }") == [
                "\(folder.path)/scenario.yaml:4:23: 'verify.tls.certificate' is one connection's, which has no device to fill '{…}' with"
            ])
    }

    /// devsim's control connection is its own, as the verifier: not the first device's identity,
    /// which a broker may let write its own topics only.
    @Test func theControlConnectionConnectsAsTheVerifier() throws {
        let folder = try Folder()
        let scenario = try folder.load(
            "  username: \"{id}\"\n  password: \"pw-{id}\"\ncontrol: { topic: ctl }\nverify: { username: watcher, password: w }")
        let control = try #require(FleetPlan(scenarios: [scenario], settings: RunSettings()).controls.first)
        #expect(control.options.username == "watcher")
        #expect(control.options.password == "w")
    }

    /// One device's certificate missing among many is named, with the device; a thousand
    /// missing show their first ten and a count.
    @Test func eachDevicesCertificateIsCheckedAndNamed() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        try certificates.makeDeviceCertificates(ids: ["thing-1", "thing-3"])
        let folder = try Folder()
        let directory = certificates.directory
        let broker = "  tls: { ca: \(certificates.ca), certificate: \"\(directory)/{id}.pem\", key: \"\(directory)/{id}.key\" }"
        let plan = FleetPlan(scenarios: [try folder.load(broker)], settings: RunSettings())
        let place = "\(folder.path)/scenario.yaml"
        let problems = TLSUse.problems(of: plan.tlsUses).map(\.description)
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { $0.hasPrefix(place + ":2:") })
        #expect(problems[0].hasSuffix("broker.tls.certificate: device thing-2: '\(directory)/thing-2.pem' does not exist"))
        #expect(problems[1].hasSuffix("broker.tls.key: device thing-2: '\(directory)/thing-2.key' does not exist"))
        let many = FleetPlan(
            scenarios: [try folder.load(broker, devices: Folder.devices.replacingOccurrences(of: "count: 3", with: "count: 14"))],
            settings: RunSettings())
        let manyProblems = TLSUse.problems(of: many.tlsUses).map(\.description)
        // thing-2 and thing-4…14 lack both files: ten of each named, two counted.
        #expect(manyProblems.count == 22)
        #expect(manyProblems.contains { $0.hasSuffix("broker.tls.certificate: and 2 more connections whose file does not exist") })
    }
}
