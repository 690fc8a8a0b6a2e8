import MQTT
import Report
import Scenario
import Simulator
import Testing

/// Where the connections go and come from (`broker.hosts`, `broker.bind`), and the ports they
/// need (`PortLimit`): decided in the plan, alike in every shard.
@Suite struct HostsPlanTests {
    private static func yaml(_ broker: String, count: Int = 6, connection: String = "") -> String {
        """
        name: cluster
        broker: { \(broker) }
        devices:
          - name: meter
            count: \(count)
            topic: "m/{id}"
            publish: 1/s
            \(connection)
            payload: { fields: { n: { counter: 0 } } }
        """
    }

    @Test func connectionsComeFromTheSourceAddressesInTurn() throws {
        let whole = try plan(yaml: Self.yaml("bind: [127.0.0.2, 127.0.0.3, 127.0.0.4]", count: 7))
        #expect(whole.connections.map(\.options.bindAddress) == (0..<7).map { ["127.0.0.2", "127.0.0.3", "127.0.0.4"][$0 % 3] })
        // A shard deals them as the whole fleet does; the command line's list wins.
        var settings = RunSettings()
        settings.shard = Shard(index: 1, count: 2)!
        let shard = try plan(yaml: Self.yaml("bind: [127.0.0.2, 127.0.0.3, 127.0.0.4]", count: 7), settings: settings)
        let addresses = Dictionary(uniqueKeysWithValues: whole.connections.map { ($0.options.clientID, $0.options.bindAddress) })
        #expect(!shard.connections.isEmpty && shard.connections.allSatisfy { addresses[$0.options.clientID] == $0.options.bindAddress })
        settings.shard = nil
        settings.bind = BindAddresses(addresses: ["10.0.0.9"], flag: "--bind")
        #expect(
            try plan(yaml: Self.yaml("bind: 127.0.0.2"), settings: settings).connections.allSatisfy { $0.options.bindAddress == "10.0.0.9" }
        )
    }

    @Test func devicesAreSpreadOverTheHostsByTheirIdsOrInTurn() throws {
        let addresses = [BrokerAddress(host: "a", port: 1883), BrokerAddress(host: "b", port: 1884)]
        let byDevice = try plan(yaml: Self.yaml("hosts: [a, \"b:1884\"]", count: 40))
        for connection in byDevice.connections {
            let home = addresses[HostSpread.device.host(of: connection.devices[0].id, index: 0, among: 2)]
            #expect(BrokerAddress(host: connection.options.host, port: connection.options.port) == home)
            #expect(connection.options.hosts == addresses, "each fails over to the other")
        }
        #expect(Set(byDevice.connections.map(\.options.host)) == ["a", "b"])
        let inTurn = try plan(yaml: Self.yaml("hosts: [a, \"b:1884\"], spread: roundRobin", count: 5))
        #expect(inTurn.connections.map(\.options.host) == ["a", "b", "a", "b", "a"])
        // A shard's devices go where they go in the whole fleet.
        var settings = RunSettings()
        settings.shard = Shard(index: 0, count: 3)!
        let shard = try plan(yaml: Self.yaml("hosts: [a, \"b:1884\"]", count: 40), settings: settings)
        let whole = Dictionary(uniqueKeysWithValues: byDevice.connections.map { ($0.options.clientID, $0.options.host) })
        #expect(!shard.connections.isEmpty && shard.connections.allSatisfy { whole[$0.options.clientID] == $0.options.host })
        // One broker on the command line stands for the cluster.
        settings.shard = nil
        settings.host = "c"
        #expect(try plan(yaml: Self.yaml("hosts: [a, b]"), settings: settings).connections.allSatisfy { $0.options.hosts.isEmpty })
    }

    /// Issue 29: a fleet that needs more ports to one broker address than its source addresses
    /// give is refused before connecting, with the arithmetic; here with a range of 10 ports.
    @Test func aFleetBeyondItsPortsIsRefusedWithTheArithmetic() throws {
        let ports = PortLimit.Range(low: 1000, high: 1009)
        let plain = try plan(yaml: Self.yaml("host: 127.0.0.1", count: 25))
        #expect(throws: PortLimit.Shortage.self) { try PortLimit.check(plain, settings: RunSettings(), ports: ports) }
        #expect(
            PortLimit.message(plain, ports: ports)
                == "25 connections to 127.0.0.1:1883 need 3 source addresses at 10 ports each (net.ipv4.ip_local_port_range is "
                + "1000-1009); without broker.bind or --bind they come from the machine's one default address: "
                + "give 3 addresses of this machine in broker.bind or --bind")
        let two = try plan(yaml: Self.yaml("host: 127.0.0.1, bind: [127.0.0.2, 127.0.0.3]", count: 25))
        #expect(
            PortLimit.message(two, ports: ports)
                == "test.yaml:2:34: broker.bind gives 2 source addresses, and 25 connections to 127.0.0.1:1883 need 3 at 10 ports "
                + "each (net.ipv4.ip_local_port_range is 1000-1009): add addresses to broker.bind or --bind")
        let one = try plan(yaml: Self.yaml("host: 127.0.0.1, bind: 127.0.0.2", count: 25))
        #expect(PortLimit.message(one, ports: ports)?.contains("broker.bind gives 1 source address, and 25 connections") == true)
        let three = try plan(yaml: Self.yaml("host: 127.0.0.1, bind: [127.0.0.2, 127.0.0.3, 127.0.0.4]", count: 25))
        #expect(PortLimit.message(three, ports: ports) == nil)
        // Shards count their own connections: half the fleet fits two addresses.
        var settings = RunSettings()
        settings.shard = Shard(index: 0, count: 2)!
        #expect(
            PortLimit.message(
                try plan(yaml: Self.yaml("host: 127.0.0.1, bind: [127.0.0.2, 127.0.0.3]", count: 25), settings: settings), ports: ports)
                == nil)
        // Each host of a cluster has its own ports; an estimate says it is one.
        let cluster = try plan(yaml: Self.yaml("hosts: [a, b], spread: roundRobin", count: 20))
        #expect(PortLimit.message(cluster, ports: ports) == nil)
        #expect(
            PortLimit.message(plain, ports: PortLimit.Range(low: 1, high: 10, isRead: false))?
                .contains("at an estimated 10 ports each (net.ipv4.ip_local_port_range could not be read)") == true)
    }
}

extension HostsPlanTests {
    /// Review of issue 29: the way out the refusal gives must fit once followed. Unbound, each
    /// host of a cluster has its own ports; bound, an address's ports are shared by the
    /// connections to every host, so the addresses to give count the whole fleet's connections.
    @Test func theAddressesTheRefusalAsksForAreEnoughWithSeveralHosts() throws {
        let ports = PortLimit.Range(low: 1000, high: 1009)
        let cluster = try plan(yaml: Self.yaml("hosts: [a, b], spread: roundRobin", count: 30))
        let message = try #require(PortLimit.message(cluster, ports: ports))
        #expect(message.hasPrefix("15 connections to a:1883 need 2 source addresses at 10 ports each"), "\(message)")
        #expect(message.contains("give 3 addresses of this machine in broker.bind or --bind"), "\(message)")
        var settings = RunSettings()
        settings.bind = BindAddresses(addresses: ["127.0.0.2", "127.0.0.3", "127.0.0.4"], flag: "--bind")
        #expect(
            PortLimit.message(try plan(yaml: Self.yaml("hosts: [a, b], spread: roundRobin", count: 30), settings: settings), ports: ports)
                == nil)
        settings.bind = BindAddresses(addresses: ["127.0.0.2", "127.0.0.3"], flag: "--bind")
        #expect(
            PortLimit.message(try plan(yaml: Self.yaml("hosts: [a, b], spread: roundRobin", count: 30), settings: settings), ports: ports)
                != nil)
    }
}

extension PortLimit {
    /// The refusal of `plan` as the run would say it, `nil` when it fits.
    static func message(_ plan: FleetPlan, settings: RunSettings = RunSettings(), ports: Range) -> String? {
        do throws(Shortage) {
            try check(plan, settings: settings, ports: ports)
            return nil
        } catch {
            return error.description
        }
    }
}
