import MQTT
import Testing
@testable import Scenario

/// `broker.bind` and `broker.hosts` (issue 29, part C): what they read, and their mistakes at
/// their places.
@Suite struct HostsLoadingTests {
    @Test func bindIsAnAddressOrAList() throws {
        let one = try load("broker: { bind: 127.0.0.2 }\n" + minimalDevices).broker.bind
        #expect(one?.addresses == ["127.0.0.2"])
        #expect(one?.origin == "test.yaml:1:17: broker.bind")
        let two = try load("broker: { bind: [127.0.0.2, \"::1\"] }\n" + minimalDevices).broker.bind
        #expect(two?.addresses == ["127.0.0.2", "::1"])
        #expect(two.map { (0..<4).map($0.address(of:)) } == ["127.0.0.2", "::1", "127.0.0.2", "::1"])
    }

    @Test func badBindAddressesNameTheirPlace() {
        #expect(
            problems("broker: { bind: [127.0.0.2, eth0] }\n" + minimalDevices) == [
                "test.yaml:1:29: expected an IP address for 'bind': 'eth0' is not an IP address of this machine such as 127.0.0.2 or 10.0.0.5"
            ])
        #expect(
            problems("broker: { bind: \"127.0.0.2:4000\" }\n" + minimalDevices) == [
                "test.yaml:1:17: expected an IP address for 'bind': '127.0.0.2:4000' holds a port: a source address takes none (the kernel picks the port)"
            ])
        #expect(
            problems("broker: { bind: [127.0.0.2, 127.0.0.2] }\n" + minimalDevices) == [
                "test.yaml:1:29: '127.0.0.2' is in 'bind' twice: each source address once"
            ])
        #expect(
            problems("broker: { bind: [] }\n" + minimalDevices) == [
                "test.yaml:1:17: expected an IP address or a list of them for 'bind', found an empty list"
            ])
    }

    @Test func hostsAreURLsOrHostPorts() throws {
        let broker = try load(
            "broker: { hosts: [\"mqtt://10.0.0.1:1883\", \"10.0.0.2:1884\", broker-3], port: 1885, spread: roundRobin }\n" + minimalDevices
        ).broker
        #expect(
            broker.hosts?.entries == [
                .init(host: "10.0.0.1", port: 1883), .init(host: "10.0.0.2", port: 1884), .init(host: "broker-3", port: nil),
            ])
        #expect(broker.hosts?.spread == .roundRobin && broker.hosts?.scheme == .mqtt && broker.port == 1885)
        #expect(broker.hosts?.location?.description == "test.yaml:1:18")
        let secure = try load("broker: { hosts: [\"mqtts://a:8883\", \"b:8883\"] }\n" + minimalDevices).broker
        #expect(secure.tls == TLSSettings() && secure.hosts?.spread == .device, "mqtts:// is TLS; spread by device unless told")
    }

    @Test func badHostsNameTheirPlace() {
        #expect(
            problems("broker: { hosts: [a, \"ws://b/mqtt\", \"mqtt://c\"] }\n" + minimalDevices) == [
                "test.yaml:1:37: 'mqtt://c' differs from the first URL in 'hosts' (ws://) in scheme or path: "
                    + "the hosts of one cluster share a transport and TLS"
            ])
        #expect(
            problems("broker: { hosts: [\"a:1883\", \"a:1883\"] }\n" + minimalDevices) == [
                "test.yaml:1:29: 'a:1883' is in 'hosts' twice: each broker once"
            ])
        #expect(
            problems("broker: { hosts: [\"a:99999\"] }\n" + minimalDevices) == [
                "test.yaml:1:19: expected a broker URL or host:port in 'hosts': 'mqtt://a:99999': expected a port from 1 to 65535 after ':', found '99999'"
            ])
        #expect(
            problems("broker: { hosts: [a, b], host: c }\n" + minimalDevices) == [
                "test.yaml:1:18: 'hosts' lists the brokers of one cluster: leave out 'host', or 'hosts'"
            ])
        #expect(
            problems("broker: { hosts: a }\n" + minimalDevices) == [
                "test.yaml:1:18: expected a list of brokers for 'hosts' (such as [\"mqtt://10.0.0.1:1883\", \"10.0.0.2:1883\"]), found 'a'"
            ])
        #expect(
            problems("broker: { hosts: [a, b], spread: random }\n" + minimalDevices) == [
                "test.yaml:1:34: expected device or roundRobin for 'spread', found 'random'"
            ])
        #expect(
            problems("broker: { host: a, spread: device }\n" + minimalDevices) == [
                "test.yaml:1:28: 'spread' says how the devices are dealt over 'hosts': give 'hosts' too"
            ])
    }

    @Test func aSpreadByDeviceIsStable() {
        // FNV-1a of the id: the same in every process, run and shard.
        let homes = (1...1000).map { HostSpread.device.host(of: "meter-\($0)", index: 0, among: 3) }
        #expect(homes == (1...1000).map { HostSpread.device.host(of: "meter-\($0)", index: 0, among: 3) })
        #expect(Set(homes) == [0, 1, 2])
        #expect((0..<1000).filter { homes[$0] == 0 }.count > 250, "roughly a third each")
        #expect((0..<5).map { HostSpread.roundRobin.host(of: "x", index: $0, among: 2) } == [0, 1, 0, 1, 0])
    }
}
