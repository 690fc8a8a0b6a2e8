extension Verifier {
    /// Figures of one topic: normally one device's; or of a Sparkplug edge node's messages,
    /// on the topics of the node and its devices, named by the node's filter.
    package struct Stream: Sendable {
        package var topic: String
        /// Devices publishing on the topic (edge nodes on a node's topics); with more than one,
        /// their sequence numbers mix, so every message counts as distinct and no duplicate or
        /// order is judged.
        package var devices = 0
        package var published = 0
        /// Of `published`, those published while its subscriber connection was not subscribed
        /// (`VerifierPresence`), which could not be received.
        package var publishedWhileAway = 0
        /// Of `published`, those published to a host of `broker.hosts` other than the one its
        /// subscriber connection was on, which brokers that share nothing do not deliver to it.
        package var publishedUnwatched = 0
        /// Of `published`, those the broker had not acknowledged when the run ended (QoS 1/2).
        package var unacknowledged = 0
        /// Every message received, copies included.
        package var deliveries = 0
        package var tracker = SequenceTracker()
        /// A Sparkplug edge node's seq, for its stream; `nil` for a topic's.
        package var node: SparkplugSeqTracker?
        /// Messages with no readable sequence number.
        package var unnumbered = 0
        /// Its device's part in a capacity step's `lost`, in a search with that SLO.
        var window: StepWindow?
        let plan: VerifyPlan

        /// Whether its messages' numbers are judged: one device (or node) numbers them.
        private var judged: Bool { devices <= 1 && (node != nil || plan.readsSequence) }
        /// Distinct messages received.
        package var received: Int { judged ? (node?.received ?? tracker.received) + unnumbered : deliveries }
        package var duplicated: Int { judged ? node?.duplicated ?? tracker.duplicated : 0 }
        /// None for a node: its seq cannot tell a late message from one past a gap.
        package var outOfOrder: Int { judged && node == nil ? tracker.outOfOrder : 0 }
        /// What went missing, published to a host the verifier did not watch: no more than was.
        package var unwatched: Int { min(publishedUnwatched, max(0, published - received)) }
        /// What went missing besides, while the verifier was away: no more than was published then.
        package var missedWhileAway: Int { min(publishedWhileAway, max(0, published - received - unwatched)) }
        /// What went missing besides, and the broker never acknowledged: not proven lost (a broker
        /// slower than the fleet holds them, or may deliver them yet).
        package var unconfirmed: Int { min(unacknowledged, max(0, published - received - unwatched - missedWhileAway)) }
        /// What the broker lost: what went missing but for what the verifier could not see
        /// (unwatched, away) and what the broker never acknowledged.
        package var lost: Int { max(0, published - received - unwatched - missedWhileAway - unconfirmed) }
        /// Numbers missing between the lowest and the highest received, where they can be
        /// judged (one device, a sequence field): what a device dropped from a full offline
        /// buffer included, as it keeps its number. For a node, what its seq shows missing
        /// (`SparkplugSeqTracker.missing`).
        package var gaps: Int { judged ? node?.missing ?? Int(clamping: tracker.gaps) : 0 }
    }
}
