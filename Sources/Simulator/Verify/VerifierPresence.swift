import Synchronization

/// Whether a subscriber connection of the verifier is subscribed now, as the devices whose topics
/// it watches see it when they publish: what they publish while it is not (between a loss and
/// the SUBACK after it) cannot reach it, and is counted apart from what the broker lost
/// (`VerifySummary.missedWhileAway`). Written on the subscriber's loop, read on the devices'.
final class VerifierPresence: Sendable {
    private let listening = Atomic<Bool>(false)

    var isListening: Bool { listening.load(ordering: .relaxed) }

    func set(listening: Bool) {
        self.listening.store(listening, ordering: .relaxed)
    }
}
