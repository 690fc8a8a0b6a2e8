/// What a reload (SIGHUP) or a `scale` command does to the running fleet, found by comparing
/// the groups that run with a new plan's, by name and then connection by connection:
///
/// - a group only the new plan has is added, one only the running fleet has is removed;
/// - a group whose description changed (`GroupPlan.fingerprint`) restarts: every connection
///   leaves and its successors open;
/// - a group that differs only in its device count keeps the connections both have (same client
///   id, same devices), and only the others leave or open;
/// - every other group is left alone: no connection of it reconnects, no tick of it is lost.
///
/// Pure: the fleet carries it out.
package struct FleetChange: Sendable {
    package enum Kind: String, Sendable, Codable {
        case added, removed, changed, scaled, unchanged
    }

    /// A running group as the comparison needs it.
    package struct Running: Sendable {
        package var plan: GroupPlan
        /// Its connections' keys (`ConnectionPlan.key`).
        package var connections: Set<String>

        package init(plan: GroupPlan, connections: Set<String>) {
            self.plan = plan
            self.connections = connections
        }
    }

    /// A connection to open, and the one it takes over from: a connection with the same
    /// client id that leaves first, since a broker throws the older of two such clients off.
    package struct Opening: Sendable {
        package var plan: ConnectionPlan
        package var replaces: String?
    }

    package struct Group: Sendable {
        package var plan: GroupPlan
        package var kind: Kind
        /// Keys of the connections that leave.
        package var retiring: [String] = []
        package var opening: [Opening] = []
        /// The group's index in the new plan; nil for a removed group.
        package var newIndex: Int?
    }

    package var groups: [Group] = []

    /// Whether anything changes at all.
    package var isEmpty: Bool { groups.allSatisfy { $0.kind == .unchanged } }

    /// The names of the groups of one kind.
    package func names(_ kind: Kind) -> [String] { groups.filter { $0.kind == kind }.map(\.plan.name) }

    package init(running: [Running], new plan: FleetPlan) {
        var byName: [String: Running] = [:]
        for group in running { byName[group.plan.name] = group }
        let newNames = Set(plan.groupPlans.map(\.name))
        // A successor waits for the connection with its client id to be gone, in whichever
        // group that one was: the broker knows no groups.
        var retiringByClient: [String: String] = [:]
        func noteRetiring(_ keys: [String]) {
            for key in keys where retiringByClient[Self.clientID(ofKey: key)] == nil { retiringByClient[Self.clientID(ofKey: key)] = key }
        }
        for (index, groupPlan) in plan.groupPlans.enumerated() {
            let connections = plan.connections.filter { $0.group == index }
            guard let old = byName[groupPlan.name] else {
                groups.append(
                    Group(plan: groupPlan, kind: .added, opening: connections.map { Opening(plan: $0) }, newIndex: index))
                continue
            }
            let kept = old.plan.fingerprint == groupPlan.fingerprint ? old.connections : []
            let newByKey = Set(connections.map(\.key))
            let retiring = old.connections.subtracting(newByKey.intersection(kept)).sorted()
            let opening = connections.filter { !kept.contains($0.key) }
            let kind: Kind =
                old.plan.fingerprint != groupPlan.fingerprint ? .changed : retiring.isEmpty && opening.isEmpty ? .unchanged : .scaled
            noteRetiring(retiring)
            groups.append(
                Group(plan: groupPlan, kind: kind, retiring: retiring, opening: opening.map { Opening(plan: $0) }, newIndex: index))
        }
        for group in running where !newNames.contains(group.plan.name) {
            let retiring = group.connections.sorted()
            noteRetiring(retiring)
            groups.append(Group(plan: group.plan, kind: .removed, retiring: retiring))
        }
        for group in groups.indices {
            for opening in groups[group].opening.indices {
                guard let clientID = groups[group].opening[opening].plan.options.clientID else { continue }
                groups[group].opening[opening].replaces = retiringByClient[clientID]
            }
        }
    }

    /// The client id part of a `ConnectionPlan.key`.
    package static func clientID(ofKey key: String) -> String {
        String(key[..<(key.firstIndex(of: "\u{1}") ?? key.endIndex)])
    }
}

extension ConnectionPlan {
    /// What tells the connection apart within its group: its client id and its devices' ids.
    /// Two plans with one key, in groups with one fingerprint, make the same connection.
    package var key: String {
        (options.clientID ?? "") + "\u{1}" + devices.map(\.id).joined(separator: "\u{1}")
    }
}
