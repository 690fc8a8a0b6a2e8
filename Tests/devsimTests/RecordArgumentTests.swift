import Testing
@testable import devsim

/// Issue 30, item 1: `devsim record`'s flags, parsed as `run`'s, and the mistakes each names.
@Suite struct RecordArgumentTests {
    private func record(_ arguments: [String], _ environment: [String: String] = [:]) throws(UsageError) -> RecordOptions {
        guard case .record(let options) = try ArgumentParser.parse(["record"] + arguments, environment: environment) else {
            Issue.record("not a record command")
            return RecordOptions()
        }
        return options
    }

    private func mistake(_ arguments: [String], _ environment: [String: String] = [:]) -> UsageError? {
        do {
            _ = try record(arguments, environment)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsTheFiltersTheLimitsAndTheBrokerAsRunDoes() throws {
        let options = try record(
            [
                "--url", "mqtt://broker:1884", "--topic", "a/#", "--topic=b/+/c", "--topic", "a/#", "--output", "rec", "--messages", "5",
                "--duration", "10m", "--qos", "1", "--protocol", "mqtt311", "--client-id", "me", "--infer", "--force",
            ],
            ["DEVSIM_USERNAME": "user", "DEVSIM_PASSWORD": "secret"])
        #expect(options.filters.map(\.text) == ["a/#", "b/+/c"])
        #expect(options.common.url?.host == "broker" && options.common.url?.port == 1884)
        #expect(options.common.username == "user" && options.common.password == "secret")
        #expect(options.output == "rec" && options.messages == 5 && options.common.duration == .seconds(600))
        #expect(options.qos == .atLeastOnce && options.common.mqttProtocol == .v311 && options.clientID == "me")
        #expect(options.infer && options.force)
    }

    @Test func subscribesAtQoS2UnlessTold() throws {
        #expect(try record(["--topic", "#", "--output", "rec"]).qos == .exactlyOnce)
    }

    @Test func namesTheFlagOfEachMistake() {
        #expect(mistake(["--output", "rec"])?.message.contains("--topic") == true)
        #expect(mistake(["--topic", "a/#"])?.message.contains("--output DIR is required") == true)
        let filter = mistake(["--topic", "a/#/b", "--output", "rec"])?.message
        #expect(filter?.hasPrefix("--topic 'a/#/b': ") == true, "\(filter ?? "")")
        #expect(mistake(["--topic", "a+", "--output", "rec"])?.message.hasPrefix("--topic 'a+': ") == true)
        #expect(mistake(["--topic", "a", "--output", "rec", "--qos", "3"])?.message.hasPrefix("--qos: ") == true)
        #expect(mistake(["--topic", "a", "--output", "rec", "--messages", "0"])?.message.hasPrefix("--messages: ") == true)
        #expect(mistake(["--topic", "a", "--output", "rec", "--password", "x"])?.message.hasPrefix("--password would show") == true)
        #expect(mistake(["--topic", "a", "--output", "rec", "--url", "mqtt://a,mqtt://b"])?.message.hasPrefix("--url: ") == true)
        #expect(mistake(["--topic", "a", "--output", "rec", "file.yaml"])?.message.contains("'file.yaml'") == true)
        let unknown = mistake(["--topic", "a", "--output", "rec", "--topics", "b"])?.message
        #expect(unknown == "record: unknown option '--topics'; did you mean --topic?", "\(unknown ?? "")")
        #expect(mistake(["--topic", "a", "--output", "rec"], ["DEVSIM_PORT": "0"])?.message.hasPrefix("DEVSIM_PORT: ") == true)
    }

    @Test func pointsToItsOwnHelp() {
        #expect(mistake(["--output", "rec"])?.hint == "Try 'devsim record --help'.")
        #expect(Help.text(topic: "record").contains("--topic FILTER"))
        #expect(Help.general.contains("devsim record"))
    }
}
