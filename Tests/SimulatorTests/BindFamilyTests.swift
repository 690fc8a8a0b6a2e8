import Scenario
import Simulator
import Testing

/// Review of issue 29, part C: a source address of one family cannot reach a broker address of
/// the other (libmosquitto's every connect fails with "Address family not supported by
/// protocol"): where both are addresses, the run is refused before connecting, at the key.
@Suite struct BindFamilyTests {
    private static func yaml(_ broker: String) -> String {
        """
        broker: { \(broker) }
        devices:
          - name: meter
            count: 2
            topic: "m/{index}"
            publish: 1/s
            payload: { fields: { seq: { counter: 0 } } }
        """
    }

    private func problem(_ yaml: String, settings: RunSettings = RunSettings()) throws -> String? {
        let plan = try plan(yaml: yaml, settings: settings)
        do throws(RunCheckError) {
            try RunChecks().check(plan, settings: settings)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func anIPv6SourceForAnIPv4BrokerIsRefusedAtItsPlace() throws {
        #expect(
            try problem(Self.yaml("host: 127.0.0.1, bind: [127.0.0.1, \"::1\"]"))
                == "test.yaml:1:46: broker.bind: ::1 is an IPv6 address and the broker 127.0.0.1:1883 an IPv4 one: "
                + "no connection goes from one family to the other; give IPv4 source addresses")
        var settings = RunSettings()
        settings.bind = BindAddresses(addresses: ["::1"], flag: "--bind")
        #expect(
            try problem(Self.yaml("hosts: [\"[::1]:1883\", \"127.0.0.1:1884\"]"), settings: settings)
                == "--bind: ::1 is an IPv6 address and the broker 127.0.0.1:1884 an IPv4 one: "
                + "no connection goes from one family to the other; give IPv4 source addresses")
    }

    /// A name may resolve to either family: left to the connect.
    @Test func addressesOfTheBrokersFamilyOrANameAreTaken() throws {
        #expect(try problem(Self.yaml("host: 127.0.0.1, bind: 127.0.0.1")) == nil)
        #expect(try problem(Self.yaml("host: \"::1\", bind: \"::1\"")) == nil)
        #expect(try problem(Self.yaml("host: localhost, bind: \"::1\"")) == nil)
    }
}
