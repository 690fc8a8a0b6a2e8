extension FleetPlan {
    /// How the connections open when that takes long enough to notice, 2 s or more: how many
    /// a ramp opens (those `devices` stages bring in open as the count goes, not at a ramp's
    /// place), and when the last of them opens, in seconds from the start. A big fleet without
    /// `rampUp` opens at the default 1,000 a second, not at once.
    public var ramp: (connections: Int, lastOpen: Double)? {
        let ramped = connections.filter { $0.presence == nil }
        guard let last = ramped.map(\.startOffset).max(), last >= 2 else { return nil }
        return (ramped.count, last)
    }
}
