import Testing

@testable import Report

/// Issue 26, item 3: what the log warns of the closed-loop check when the run ends, made by the
/// report module rather than the command line.
@Suite struct VerifyWarningTests {
    @Test func aCheckThatDidItsJobSaysNothing() {
        #expect(VerifySummary(received: 10, lost: 0, duplicated: 0, outOfOrder: 0).warning == nil)
    }

    /// In the order a reader needs them: a check that judged nothing says only that.
    @Test func theWarningSaysWhoseDoingTheLostFigureIs() {
        var summary = VerifySummary(received: 900, lost: 100, duplicated: 0, outOfOrder: 0)
        summary.fellBehind = true
        summary.receivedPerSecond = 90.4
        summary.acceptedPerSecond = 100
        summary.missingWhileConnected = 80
        #expect(
            summary.warning
                == "verify: the subscribers fell behind: they received 90 msg/s while the broker accepted 100 msg/s, and 80 of "
                + "the 100 lost went missing while every connection was up, as a broker drops what it queues beyond its bound for "
                + "a subscriber that does not keep up (mosquitto's max_queued_messages, behind max_inflight_messages): those say "
                + "more of the subscribers, or of the broker's limits for one, than of the broker losing messages")
        summary.silentTopics = 1
        #expect(
            summary.warning
                == "verify: of 1 topic nothing was received, of which the devices published: a broker's ACL may keep the verifier "
                + "from reading them; give it an identity of its own ('verify:' in the scenario)")
        summary.invalid = "the broker refused the subscription"
        #expect(
            summary.warning
                == "verify: not judged: the broker refused the subscription; no figure of the closed-loop check says anything of "
                + "the broker")
    }
}
