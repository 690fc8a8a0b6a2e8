/// What held a capacity step back from its SLOs.
public enum Limiter: String, Codable, Sendable, CaseIterable {
    /// The broker: devsim and its machine had room to spare.
    case broker
    /// devsim itself: its loops, or its CPU, were saturated.
    case devsim
    /// The machine devsim runs on: its cores busy with other work (the broker beside devsim),
    /// stolen by a hypervisor, or waking threads too late.
    case machine
}
