/// What a capacity step published and what of it the closed-loop check received (`StepWindow`),
/// and `lost`, the rest, judged once the step's last messages had time to arrive.
public struct StepLoss: Codable, Sendable, Equatable {
    public var published: Int
    public var received: Int
    /// Summed device by device, so that what one device received twice (a copy too far back
    /// for `SequenceTracker` to tell) never hides what another lost.
    public var lost: Int

    /// One device's: what it published and received in its window.
    public init(published: Int, received: Int) {
        self.init(published: published, received: received, lost: max(0, published - received))
    }

    public init(published: Int, received: Int, lost: Int) {
        self.published = published
        self.received = received
        self.lost = lost
    }

    package static let none = StepLoss(published: 0, received: 0)

    /// Two devices' together, or a device's added to the sum so far.
    package static func + (lhs: StepLoss, rhs: StepLoss) -> StepLoss {
        StepLoss(published: lhs.published + rhs.published, received: lhs.received + rhs.received, lost: lhs.lost + rhs.lost)
    }
}
