import MQTT
import Reactor
import Report
import Synchronization

/// The figures of a cluster's brokers (`broker.hosts`), for the report and `/metrics`. A
/// connection of such a group counts its messages in counters of its group, loop and the host
/// it is on (`counters(group:loop:host:)`), which it changes at a failover; its group's figures
/// are those and its other counters together. Its comings and goings, rare, in the host's own
/// tally. Any thread: made under a lock at a connection's making, read by the report.
final class HostTable: Sendable {
    /// One broker's connection events. Written by the loops, read by anyone.
    final class Tally: Sendable {
        let address: String
        let up = Atomic<Int>(0)
        let connects = Atomic<Int>(0)
        let losses = Atomic<Int>(0)
        let failoversFrom = Atomic<Int>(0)
        let failoversTo = Atomic<Int>(0)

        init(address: String) { self.address = address }
    }

    private struct Slot: Hashable {
        let group: Int
        let loop: Int
        let host: String
    }

    private struct State {
        var tallies: [String: Tally] = [:]
        /// The hosts in the order first met, the report's.
        var order: [String] = []
        var counters: [Slot: Counters] = [:]
    }

    private let state = Locked(State())

    /// The tally of `host`, made now if it is new.
    func tally(of host: BrokerAddress) -> Tally {
        let name = host.description
        return state.withLock { state in
            if let tally = state.tallies[name] { return tally }
            let tally = Tally(address: name)
            state.tallies[name] = tally
            state.order.append(name)
            return tally
        }
    }

    /// The counters of group `group`'s connections on loop `loop` while they are on `host`.
    func counters(group: Int, loop: Int, host: BrokerAddress) -> Counters {
        _ = tally(of: host)
        let slot = Slot(group: group, loop: loop, host: host.description)
        return state.withLock { state in
            if let counters = state.counters[slot] { return counters }
            let counters = Counters()
            state.counters[slot] = counters
            return counters
        }
    }

    /// Every counter of group `group`'s, on any host and loop.
    func counters(ofGroup group: Int) -> [Counters] {
        state.withLock { $0.counters.filter { $0.key.group == group }.map(\.value) }
    }

    /// Every counter of every group.
    var allCounters: [Counters] { state.withLock { Array($0.counters.values) } }

    /// Each host's figures as of now, in the order first met; empty without a cluster.
    var figures: [HostFigures] {
        let (order, tallies, counters) = state.withLock { ($0.order, $0.tallies, $0.counters) }
        return order.map { name in
            var figures = HostFigures(host: name)
            if let tally = tallies[name] {
                figures.connectionsUp = tally.up.load(ordering: .relaxed)
                figures.connects = tally.connects.load(ordering: .relaxed)
                figures.connectionLosses = tally.losses.load(ordering: .relaxed)
                figures.failoversFrom = tally.failoversFrom.load(ordering: .relaxed)
                figures.failoversTo = tally.failoversTo.load(ordering: .relaxed)
            }
            let values = Totals(counters.filter { $0.key.host == name }.map(\.value)).figures
            figures.published = values[.published]
            figures.acknowledged = values[.acknowledged]
            figures.failed = values[.failed]
            return figures
        }
    }
}
