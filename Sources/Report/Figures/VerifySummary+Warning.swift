extension VerifySummary {
    /// What the log warns of when the run ends, or `nil` when the check did its job and kept
    /// up: why nothing was judged, topics the broker rewrote, topics a broker's ACL may hide
    /// from the verifier, or subscribers that fell behind. Said last, where a reader of the log looks first: whose
    /// doing the lost figure is.
    public var warning: String? {
        if let invalid {
            return "verify: not judged: \(invalid); no figure of the closed-loop check says anything of the broker"
        }
        if let unmatched {
            return "verify: \(Text.counted(unmatched, "message")) came on topics that match none of the verifier's subscriptions: "
                + "the broker rewrote their topics (the first is named above), so what the devices published there counts as "
                + "lost, which says nothing of the broker losing messages"
        }
        if let silentTopics {
            return "verify: of \(Text.counted(silentTopics, "topic")) nothing was received, of which the devices published: a "
                + "broker's ACL may keep the verifier from reading them; give it an identity of its own ('verify:' in the scenario)"
        }
        guard fellBehind else { return nil }
        return "verify: the subscribers fell behind: they received \(Int(receivedPerSecond)) msg/s while the broker accepted "
            + "\(Int(acceptedPerSecond)) msg/s, and \(missingWhileConnected) of the \(lost) lost went missing while every "
            + "connection was up, as a broker drops what it queues beyond its bound for a subscriber that does not keep up "
            + "(mosquitto's max_queued_messages, behind max_inflight_messages): those say more of the subscribers, or of the "
            + "broker's limits for one, than of the broker losing messages"
    }
}
