import MQTT
import Mosquitto

/// A connection's roles, each made where its plan asks for it, in the order they hear each
/// event; and the subscriptions each asked for. The one place that lists the kinds of role.
struct ConnectionRoles {
    let all: [any ConnectionRole]
    /// Each role's subscriptions, by its place in `all`.
    private var subscriptions: [Int: Subscriptions] = [:]

    /// `sources`: the devices' (`DeviceBehaviour.source`), in the plan's order.
    init(plan: ConnectionPlan, seed: UInt64, sources: [any MessageSource]) {
        let roles: [(any ConnectionRole)?] = [
            TokenRenewalRole(plan: plan, seed: seed), LifecycleRole(plan: plan), PresenceRole(plan: plan),
            AvailabilityRole(devices: plan.devices), DiscoveryRole(devices: plan.devices), CommandRole(devices: plan.devices),
            SparkplugEdgeNodeRole(plan: plan, sources: sources), ScriptRole(plan: plan, sources: sources),
        ]
        all = roles.compactMap { $0 }
    }

    /// What every message of the connection carries, where a role has a stamp.
    var stamp: (any MessageStamp)? { all.lazy.compactMap(\.stamp).first }

    /// Subscribes `role` to `filters` on `client`, just connected; returns what could not be
    /// sent, in words.
    mutating func subscribe(_ filters: [String], qos: QoS, for role: any ConnectionRole, with client: Client) -> [String] {
        guard let index = all.firstIndex(where: { $0 === role }) else { return [] }
        var subscription = Subscriptions(filters, qos: qos)
        let problems = subscription.subscribe(with: client)
        subscriptions[index] = subscription
        return problems
    }

    /// Every filter the roles subscribed to, in the roles' order.
    var filters: [String] {
        subscriptions.sorted { $0.key < $1.key }.flatMap { $0.value.filters.map(\.key) }
    }

    /// The role whose SUBSCRIBE `messageID` was, and what its SUBACK said; `nil` for none of theirs.
    mutating func acknowledged(_ messageID: Int32, grantedQoS: [Int32]) -> (role: any ConnectionRole, suback: Subscriptions.Suback)? {
        for (index, var subscription) in subscriptions {
            guard let suback = subscription.acknowledged(messageID, grantedQoS: grantedQoS) else { continue }
            subscriptions[index] = subscription
            return (all[index], suback)
        }
        return nil
    }
}
