import MQTT

/// A device connection's place in a cluster (`broker.hosts`): the host it is on, and there the
/// counters its messages go to and the tally of its comings and goings (`HostTable`). Confined
/// to the connection's loop.
final class HostLink {
    private let counters: [BrokerAddress: Counters]
    private let tallies: [BrokerAddress: HostTable.Tally]
    private(set) var current: BrokerAddress
    /// Counted up on `current`.
    private var isUp = false

    init(hosts: [BrokerAddress], current: BrokerAddress, group: Int, loop: Int, table: HostTable) {
        self.current = current
        counters = Dictionary(uniqueKeysWithValues: hosts.map { ($0, table.counters(group: group, loop: loop, host: $0)) })
        tallies = Dictionary(uniqueKeysWithValues: hosts.map { ($0, table.tally(of: $0)) })
    }

    /// The counters of the host it is on.
    var currentCounters: Counters { counters[current]! }

    /// A CONNACK accepted it.
    func connected() {
        guard let tally = tallies[current] else { return }
        tally.connects.add(1, ordering: .relaxed)
        if !isUp { tally.up.add(1, ordering: .relaxed) }
        isUp = true
    }

    /// It went down: `lost`, or closed on purpose (a pause, the run's end).
    func down(lost: Bool) {
        guard let tally = tallies[current] else { return }
        if isUp { tally.up.subtract(1, ordering: .relaxed) }
        isUp = false
        if lost { tally.losses.add(1, ordering: .relaxed) }
    }

    /// Its next attempt goes to `next`, the last at `current` having failed: returns the
    /// counters there.
    func failOver(to next: BrokerAddress) -> Counters? {
        guard let counters = counters[next] else { return nil }
        tallies[current]?.failoversFrom.add(1, ordering: .relaxed)
        tallies[next]?.failoversTo.add(1, ordering: .relaxed)
        current = next
        return counters
    }
}
