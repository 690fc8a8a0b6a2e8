import Glibc
import MQTT

/// The ephemeral ports a fleet needs. A TCP connection from one source address to one broker
/// address:port takes a local port of its own from the kernel's range
/// (`net.ipv4.ip_local_port_range`), so past that many connections to one broker address the
/// connects fail (EADDRNOTAVAIL) one after another, the broker looking at fault. A connection
/// bound to a source address (`broker.bind`) takes its port at `bind(2)`, before it has a
/// destination (libmosquitto 2.0.11 binds without `IP_BIND_ADDRESS_NO_PORT`): its address's
/// ports are shared by every broker address. Checked before anything connects, beside the
/// descriptors (`DescriptorLimit`).
package enum PortLimit {
    /// The kernel's range of local ports.
    package struct Range: Sendable, Equatable {
        package var low: Int
        package var high: Int
        /// Read from `/proc/sys/net/ipv4/ip_local_port_range`, or an estimate where it is unreadable.
        package var isRead: Bool

        package init(low: Int, high: Int, isRead: Bool = true) {
            self.low = low
            self.high = high
            self.isRead = isRead
        }

        package var count: Int { max(1, high - low + 1) }

        /// The machine's, or 64,000 ports as an estimate where it cannot be read.
        package static var current: Range {
            let descriptor = open("/proc/sys/net/ipv4/ip_local_port_range", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return estimate }
            defer { close(descriptor) }
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return estimate }
            let numbers = String(decoding: bytes.prefix(count), as: UTF8.self).split(whereSeparator: {
                $0 == " " || $0 == "\t" || $0 == "\n"
            })
            .compactMap { Int($0) }
            guard numbers.count == 2, numbers[0] > 0, numbers[1] >= numbers[0] else { return estimate }
            return Range(low: numbers[0], high: numbers[1])
        }

        package static let estimate = Range(low: 1024, high: 65023, isRead: false)

        /// Where the figure comes from, for the message.
        var said: String {
            let ports = PortLimit.grouped(count)
            return isRead
                ? "\(ports) ports each (net.ipv4.ip_local_port_range is \(low)-\(high))"
                : "an estimated \(ports) ports each (net.ipv4.ip_local_port_range could not be read)"
        }
    }

    /// Why the connections `options` (a device's, subscriber's, control's) would run out of
    /// local ports, with the arithmetic; `nil` when they fit. `origin` says where an address
    /// came from (`BindAddresses.origin`), for the way out.
    package static func shortage(of options: [ClientOptions], ports: Range, origin: (String) -> String?) -> String? {
        // Unbound: the default source address, a range per broker address.
        var unbound: [BrokerAddress: Int] = [:]
        var bound: [String: (count: Int, brokers: Set<BrokerAddress>)] = [:]
        for connection in options {
            let broker = BrokerAddress(host: connection.host, port: connection.port)
            if let source = connection.bindAddress {
                bound[source, default: (0, [])].count += 1
                bound[source]!.brokers.insert(broker)
            } else {
                unbound[broker, default: 0] += 1
            }
        }
        // The most used first, ties by name: the same message in every run, as a dictionary's
        // order is not.
        let byUse = unbound.sorted { ($0.value, $1.key.description) > ($1.value, $0.key.description) }
        for (broker, count) in byUse where count > ports.count {
            let needed = (count + ports.count - 1) / ports.count
            // Bound, an address's ports are shared by the connections to every broker (see
            // above): the addresses to give are those of all of them, more than `needed` with
            // several hosts.
            let toGive = (options.count + ports.count - 1) / ports.count
            return "\(PortLimit.grouped(count)) connections to \(broker) need \(needed) source addresses at \(ports.said); "
                + "without broker.bind or --bind they come from the machine's one default address: "
                + "give \(toGive) addresses of this machine in broker.bind or --bind"
                + (toGive > needed ? ", whose ports the \(PortLimit.grouped(options.count)) connections to every broker share" : "")
        }
        let sources = bound.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
        for (source, use) in sources where use.count > ports.count {
            // The addresses the connections of this one are dealt over, and how many it would take.
            let sharing = options.filter { $0.bindAddress != nil && origin($0.bindAddress!) == origin(source) }
            let given = Set(sharing.compactMap(\.bindAddress)).count
            let needed = (sharing.count + ports.count - 1) / ports.count
            let brokers = use.brokers.count == 1 ? "\(use.brokers.first!)" : "\(use.brokers.count) broker addresses"
            return
                "\(origin(source) ?? "--bind") gives \(given) source address\(given == 1 ? "" : "es"), and \(PortLimit.grouped(sharing.count)) connections "
                + "to \(brokers) need \(needed) at \(ports.said): add addresses to broker.bind or --bind"
        }
        return nil
    }

    /// `70,000`: the figures of the message as people write them.
    package static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    package struct Shortage: Error, CustomStringConvertible {
        package let description: String
    }

    /// Throws the shortage of `plan`'s connections (this shard's alone), if any.
    package static func check(_ plan: FleetPlan, settings: RunSettings, ports: Range = .current) throws(Shortage) {
        let options =
            plan.connections.map(\.options) + plan.subscribers.flatMap { $0.members.map(\.options) } + plan.controls.map(\.options)
        let origin = { (address: String) -> String? in
            if let bind = settings.bind { return bind.origin }
            return plan.scenarios.first { $0.broker.bind?.addresses.contains(address) == true }?.broker.bind?.origin
        }
        if let problem = shortage(of: options, ports: ports, origin: origin) { throw Shortage(description: problem) }
    }
}
