/// What a recording holds so far, and what it went without: every message delivered to the
/// recorder is counted in exactly one of `messages` and `retainedCopies`, or arrived after the
/// end was decided (`afterEnd`). Confined to the recorder's loop; read once it has stopped.
package struct RecordTally: Sendable, Equatable {
    /// Messages written to the recording.
    package var messages = 0
    /// Their payloads' bytes.
    package var bytes = 0
    /// Their distinct topics.
    package var topics: Set<String> = []
    /// Times the connection was lost after the subscription was granted.
    package var gaps = 0
    /// Seconds without a subscription between a loss and the next grant.
    package var secondsAway = 0.0
    /// Retained messages the broker sent again when the recorder subscribed again after a loss
    /// (MQTT 3 marks them retained; MQTT 5 is asked not to send them): left out, as copies of
    /// messages already recorded or published while it was away.
    package var retainedCopies = 0
    /// Delivered after the recording ended (a signal, `--messages`, `--duration`), before the
    /// DISCONNECT went out: not recorded.
    package var afterEnd = 0

    package init() {}
}
