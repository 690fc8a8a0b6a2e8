import MQTT
import Scenario
import Testing

@testable import Simulator

/// Issue 26, item 1: a device connection's roles act on its events through its context, without a broker
/// (issue 39, item 2: through `RoleContext`).
@Suite struct ConnectionRoleTests {
    /// The devices of the first connection of a group of two lamps with `group`'s settings:
    /// both on one connection, or with `availability`, which needs its own, the first lamp alone.
    private func devices(_ group: String, shared: Bool = true) throws -> [DevicePlan] {
        let yaml = """
            devices:
              - name: lamp
                count: 2
                connection: \(shared ? "{ shared: 1 }" : "perDevice")
                topic: "l/{id}"
                publish: 1/s
            \(group)
                payload:
                  style: flat
                  fields:
                    light: { bool: 0, command: set }
            """
        let plan = try plan(yaml: yaml, file: "t.yaml")
        return try #require(plan.connections.first).devices
    }

    @Test func availabilitySaysOnlineAtEachConnackAndOfflineBeforeACleanDisconnect() throws {
        let role = try #require(AvailabilityRole(devices: try devices("    availability: { topic: \"l/{id}/status\" }", shared: false)))
        let context = RoleRecorder()
        role.connected(context)
        let online = context.published()
        #expect(online.map(\.topic) == ["l/lamp-1/status"])
        #expect(online.allSatisfy { $0.retain && $0.qos == .atLeastOnce && $0.payload == Array("online".utf8) })
        role.disconnecting(.goingOffline, context)
        #expect(context.published().map { String(decoding: $0.payload, as: UTF8.self) } == ["offline"])
        role.disconnecting(.leaving, context)
        #expect(context.published().count == 1, "without discovery nothing else clears the topic")
        #expect(AvailabilityRole(devices: try devices("")) == nil, "a group without availability has no such role")
    }

    @Test func discoveryAnnouncesOnceAndAgainWithStatesWhenHomeAssistantStarts() throws {
        let devices = try devices("    discovery: homeassistant")
        let role = try #require(DiscoveryRole(devices: devices))
        let context = RoleRecorder()
        role.connected(context)
        let first = context.take()
        #expect(first.first == .subscribe(["homeassistant/status"], .atMostOnce), "the status topic is subscribed to first")
        let configs = first.compactMap {
            if case .publish(let topic, let payload, _, let retain, let what, _) = $0 { (topic, payload, retain, what) } else { nil }
        }
        #expect(!configs.isEmpty && configs.allSatisfy { $0.2 && $0.3 == "discovery" })
        role.connected(context)
        #expect(context.published().isEmpty, "the configs are announced once, not at every CONNACK")

        #expect(role.receive("homeassistant/status", Array("online".utf8), context))
        let restart = context.take()
        #expect(restart.compactMap { if case .publish(let topic, _, _, _, _, _) = $0 { topic } else { nil } } == configs.map(\.0))
        let states = restart.compactMap { if case .state(let device, _) = $0 { device } else { nil } }
        #expect(states.isEmpty, "discovered devices retain their telemetry by default: a state sent again would be a duplicate")
        let unretained = try #require(DiscoveryRole(devices: try self.devices("    discovery: homeassistant\n    retain: false")))
        #expect(unretained.receive("homeassistant/status", Array("online".utf8), context))
        #expect(context.take().compactMap { if case .state(let device, _) = $0 { device } else { nil } } == [0, 1])
        #expect(role.receive("homeassistant/status", Array("offline".utf8), context) && context.take().isEmpty)
        context.isConnected = false
        #expect(role.receive("homeassistant/status", Array("online".utf8), context) && context.take().isEmpty)
        #expect(!role.receive("l/lamp-1/set", Array("{}".utf8), context), "not its message")
    }

    @Test func discoveryDeletesTheEntitiesOnlyWhenTheDevicesLeave() throws {
        let devices = try devices("    discovery: homeassistant\n    availability: { topic: \"l/{id}/status\" }", shared: false)
        let role = try #require(DiscoveryRole(devices: devices))
        let availability = try #require(AvailabilityRole(devices: devices))
        let context = RoleRecorder()
        role.retiring(.disconnected, context)
        #expect(context.take().isEmpty, "nothing announced, nothing to delete")
        role.connected(context)
        _ = context.take()
        role.disconnecting(.goingOffline, context)
        #expect(context.take().isEmpty)
        role.disconnecting(.leaving, context)
        let removals = context.published()
        #expect(removals.allSatisfy { $0.payload.isEmpty && $0.retain })
        #expect(removals.contains { $0.topic == "l/lamp-1" }, "the retained telemetry is cleared")
        #expect(removals.contains { $0.topic == "l/lamp-1/status" }, "and the availability")
        availability.disconnecting(.leaving, context)
        #expect(context.published().isEmpty, "discovery's removals clear availability's topics")

        role.connected(context)
        _ = context.take()
        role.retiring(.connected, context)
        #expect(context.take().isEmpty, "the DISCONNECT's last words delete them")
        role.retiring(.disconnected, context)
        guard case .warn(let warning, _) = try #require(context.take().first) else {
            Issue.record("retired while disconnected, the entities stay, and that is said")
            return
        }
        #expect(warning.contains("their Home Assistant entities stay"))
        role.retiring(.pausing, context)
        #expect(context.published().count == removals.count, "the socket is open still: deleted now")
    }

    @Test func commandsSubscribeAtEachConnackAndCarryOutWhatArrives() throws {
        let role = try #require(CommandRole(devices: try devices("    commands: { topic: \"l/{id}/set\" }")))
        let context = RoleRecorder()
        context.now = 100
        role.connected(context)
        #expect(context.take() == [.subscribe(["l/lamp-1/set", "l/lamp-2/set"], .atLeastOnce)], "the command topics are subscribed to")
        var suback = Subscriptions.Suback()
        context.now = 150
        role.subscribed(suback, context)
        #expect(context.take().isEmpty, "not the last SUBACK: no latency yet")
        suback.isLast = true
        context.now = 180
        role.subscribed(suback, context)
        #expect(context.take() == [.subscribeLatency(80)], "the last SUBACK gives the subscribe latency")

        #expect(role.receive("l/lamp-2/set", Array(#"{"light":1}"#.utf8), context))
        let done = context.take()
        #expect(done.first == .take(device: 1, fields: ["light"], values: [.number(1)]), "a command is carried out on its device")
        #expect(done.contains(.state(device: 1, what: "commands")), "and answered with its state")
        #expect(context.counters.commands.received == 1 && context.counters.commands.applied == 1)
        #expect(role.receive("l/lamp-1/set", Array("{}".utf8), retain: true, context))
        guard case .warn(let warning, _) = try #require(context.take().first) else {
            Issue.record("a retained command is refused, with a word")
            return
        }
        #expect(warning.contains("retained"))
        #expect(!role.receive("elsewhere", Array("{}".utf8), context))
    }
}

/// The connection's plain values: the QoS 2 guard, the acknowledgement watch, the standing.
@Suite struct ConnectionValueTests {
    @Test func theQoS2GuardNamesTheBrokerAfterThreeProtocolLossesInARow() {
        var qos2 = QoS2Guard(watching: true)
        #expect(
            qos2.connectionLost(wasUp: false, protocolError: true, awaitingCompletion: true) == .unrelated,
            "before it began, only a connection that was up")
        #expect(qos2.connectionLost(wasUp: true, protocolError: true, awaitingCompletion: true) == .suspect)
        #expect(
            qos2.connectionLost(wasUp: false, protocolError: true, awaitingCompletion: true) == .suspect,
            "once begun, a loss before the CONNACK counts")
        qos2.acknowledged()
        #expect(qos2.lossesInARow == 0)
        for _ in 1..<QoS2Guard.lossesToGiveUp { _ = qos2.connectionLost(wasUp: true, protocolError: true, awaitingCompletion: true) }
        #expect(
            qos2.connectionLost(wasUp: true, protocolError: false, awaitingCompletion: true) == .unrelated, "another loss breaks the row")
        for _ in 1..<QoS2Guard.lossesToGiveUp { _ = qos2.connectionLost(wasUp: true, protocolError: true, awaitingCompletion: true) }
        #expect(qos2.connectionLost(wasUp: true, protocolError: true, awaitingCompletion: true) == .brokerBreaksQoS2)
        #expect(qos2.brokerBreaksQoS2)
        #expect(qos2.connectionLost(wasUp: true, protocolError: true, awaitingCompletion: true) == .unrelated, "named once")
        var qos1 = QoS2Guard(watching: false)
        #expect(qos1.connectionLost(wasUp: true, protocolError: true, awaitingCompletion: true) == .unrelated)
    }

    @Test func theAckWatchCountsEachTimeoutOnceAndSaysWhenToLookAgain() {
        let watch = AckWatch(limit: 100, reconnects: true)
        var early = AckWatch.Wait(publishedAt: 0)
        var late = AckWatch.Wait(publishedAt: 50)
        var finding = AckWatch.Finding()
        watch.examine(&early, now: 100, connected: true, into: &finding)
        watch.examine(&late, now: 100, connected: true, into: &finding)
        #expect(finding == AckWatch.Finding(timedOut: 1, overdue: true, next: 150))
        var again = AckWatch.Finding()
        watch.examine(&early, now: 120, connected: false, into: &again)
        #expect(again == AckWatch.Finding(), "counted once; while down nothing is overdue")
        early.awaitedSince = 120  // resent after a CONNACK
        watch.examine(&early, now: 130, connected: true, into: &again)
        #expect(again == AckWatch.Finding(timedOut: 0, overdue: false, next: 220))
        var counting = AckWatch.Finding()
        AckWatch(limit: 100, reconnects: false).examine(&late, now: 400, connected: true, into: &counting)
        #expect(counting == AckWatch.Finding(timedOut: 1, overdue: false, next: nil), "without reconnect, only counted")
    }

    @Test func theWindowKeepsToTheBrokersReceiveMaximum() {
        final class Sender {}
        let sender = Sender()
        var window = InFlightWindow<Sender>(limit: 3)
        for id in Int32(1)...2 { window.add(id, from: sender, at: 100) }
        #expect(window.hasRoom && window.count == 2)
        window.keep(toReceiveMaximum: 2)
        #expect(!window.hasRoom, "the broker's Receive Maximum, lower than --max-inflight, bounds it")
        window.keep(toReceiveMaximum: 65_535)
        #expect(window.limit == 3 && window.hasRoom, "never above --max-inflight")
        window.keep(toReceiveMaximum: 0)
        #expect(window.limit == 1, "one at least")
        #expect(window.remove(2)?.sender === sender && window.remove(2) == nil, "an id acknowledged once")
        #expect(InFlightWindow<Sender>(limit: 0).limit == 1)
    }

    @Test func theWindowsWaitsStartAgainAfterACONNACK() {
        final class Sender {}
        let sender = Sender()
        var window = InFlightWindow<Sender>(limit: 16)
        window.add(1, from: sender, at: 0)
        window.add(2, from: sender, at: 50)
        let watch = AckWatch(limit: 100, reconnects: true)
        var finding = window.examine(with: watch, now: 120, connected: true)
        #expect(finding.timedOut == 1 && finding.overdue, "the first waited 120 on this connection")
        window.restartWaits(at: 130)  // resent after a CONNACK
        finding = window.examine(with: watch, now: 140, connected: true)
        #expect(finding.timedOut == 0 && !finding.overdue && finding.next == 150, "\(finding)")
        #expect(window.removeAll().count == 2 && window.isEmpty)
    }

    @Test func theStandingSaysWhatTicksCountAs() {
        var standing = ConnectionStanding.unopened(paused: false)
        #expect(!standing.parksTicks && !standing.countsAsPaused)
        #expect(standing.open(isIn: true) == .open && standing == .active)
        #expect(!standing.parksTicks && !standing.countsAsPaused && !standing.isPausedOrAway)
        #expect(standing.goAway() == .disconnect && standing == .away)
        #expect(standing.parksTicks && standing.countsAsPaused && standing.isPausedOrAway)
        #expect(standing.resume(isIn: true) == .stay && standing == .away, "a group's resume does not cut a lifecycle's stay short")
        #expect(standing.comeBack() == .connect && standing == .resuming && standing.parksTicks, "resuming until the CONNACK")
        standing.connected()
        #expect(standing == .active)
        #expect(standing.stagesTurned(in: false, connected: true) == .disconnect && standing == .out)
        #expect(standing.parksTicks && standing.countsAsPaused && !standing.isPausedOrAway)
        standing.connected()
        #expect(standing == .out, "a CONNACK does not bring it in: its stages do")
        #expect(standing.stagesTurned(in: true, connected: false) == .connect && standing == .joining)
        #expect(standing.parksTicks && !standing.countsAsPaused, "joining: ticks paused until the CONNACK, not counted as paused")
        standing.attemptFailed()
        #expect(standing == .active, "a join the broker does not take is a device offline")
        #expect(standing.stagesTurned(in: true, connected: true) == nil, "in already: nothing changes")
        standing.end()
        #expect(standing == .ended && !standing.parksTicks)
        #expect(standing.pause() == .stay && standing.stagesTurned(in: false, connected: false) == nil, "ended, it stays so")
    }

    @Test func aPauseByRequestHoldsThroughTheStages() {
        var standing = ConnectionStanding.active
        #expect(standing.pause() == .disconnect && standing == .paused(out: false))
        // Out while paused, in again: still paused, with nothing for the driver to do.
        #expect(standing.stagesTurned(in: false, connected: false) == .disconnect && standing == .paused(out: true))
        #expect(standing.stagesTurned(in: true, connected: false) == .stay)
        #expect(standing == .paused(out: false) && standing.countsAsPaused)
        // Resumed while out: no longer paused, but out until the stages bring it in.
        _ = standing.stagesTurned(in: false, connected: false)
        #expect(standing.resume(isIn: true) == .stay && standing == .out && standing.countsAsPaused)
        // Resumed while in: it connects, paused until the CONNACK.
        standing = .paused(out: false)
        #expect(standing.resume(isIn: true) == .connect && standing.parksTicks)
        standing.connected()
        #expect(standing == .active && !standing.parksTicks)
    }

    /// Issue 27, item 3: a SAS token's renewal is a planned reconnect, neither a loss nor a
    /// pause: it leaves and comes straight back, and its CONNACK ends it.
    @Test func aTokenRenewalReconnectsAtOnceAndEndsAtItsConnack() {
        var standing = ConnectionStanding.active
        #expect(standing.reconnect(.tokenRenewal) == .reconnect && standing == .reconnecting(.tokenRenewal))
        #expect(!standing.parksTicks && !standing.countsAsPaused && !standing.isPausedOrAway, "its ticks follow the offline policy")
        #expect(standing.reconnect(.primaryHostOffline) == .stay, "one planned reconnect at a time")
        standing.attemptFailed()
        #expect(standing == .reconnecting(.tokenRenewal), "a failed attempt leaves it reconnecting: no loss came before it")
        standing.connected()
        #expect(standing == .active)
        // Only a connection up and going nowhere else renews.
        for var other in [ConnectionStanding.away, .paused(out: false), .out, .joining, .resuming, .ended, .unopened(paused: false)] {
            let before = other
            #expect(other.reconnect(.tokenRenewal) == .stay && other == before, "\(before)")
        }
        // A pause or the stages during a renewal win: it leaves and stays away.
        standing = .reconnecting(.tokenRenewal)
        #expect(standing.pause() == .disconnect && standing == .paused(out: false))
        standing = .reconnecting(.tokenRenewal)
        #expect(standing.stagesTurned(in: false, connected: false) == .disconnect && standing == .out)
        standing = .reconnecting(.tokenRenewal)
        #expect(standing.goAway() == .disconnect && standing == .away, "a lifecycle's leave is due whatever the token (found by review)")
    }

    /// Issue 28: a Sparkplug edge node whose primary host went offline leaves and comes back
    /// when its reconnect delay is over, a planned reconnect as a token's renewal is, and its
    /// CONNACK is no renewal.
    @Test func aPrimaryHostGoneOfflineIsAPlannedReconnectThatWaitsItsDelay() {
        var standing = ConnectionStanding.active
        #expect(standing.reconnect(.primaryHostOffline) == .disconnect && standing.plannedReconnect == .primaryHostOffline)
        #expect(!standing.parksTicks && !standing.countsAsPaused && !standing.isPausedOrAway)
        #expect(standing.reconnectDue() == .connect && standing == .reconnecting(.primaryHostOffline))
        standing.connected()
        #expect(standing == .active && standing.plannedReconnect == nil && standing.reconnectDue() == .stay)
        // A pause, the stages or the lifecycle meanwhile: the delay's end brings nothing.
        for change in [
            { (s: inout ConnectionStanding) in _ = s.pause() }, { _ = $0.stagesTurned(in: false, connected: false) }, { _ = $0.goAway() },
        ] {
            var other = ConnectionStanding.active
            _ = other.reconnect(.primaryHostOffline)
            change(&other)
            #expect(other.reconnectDue() == .stay && !other.isReconnecting, "\(other)")
        }
        var renewing = ConnectionStanding.active
        #expect(renewing.reconnect(.tokenRenewal) == .reconnect && renewing.reconnectDue() == .stay, "a renewal comes straight back")
    }

    /// A resume the stages cut short before its CONNACK is given up, and the stages' join
    /// connects it again: it was left paused for good (found by review).
    @Test func aResumeTheStagesInterruptIsTakenUpAtTheJoin() {
        var standing = ConnectionStanding.active
        _ = standing.pause()
        #expect(standing.resume(isIn: true) == .connect && standing == .resuming)
        #expect(standing.stagesTurned(in: false, connected: false) == .disconnect && standing == .out)
        #expect(standing.stagesTurned(in: true, connected: false) == .connect && standing == .joining)
        var away = ConnectionStanding.away
        #expect(away.comeBack() == .connect)
        #expect(away.stagesTurned(in: false, connected: false) == .disconnect)
        #expect(away.stagesTurned(in: true, connected: false) == .connect && away == .joining)
        // A pause while resuming holds; the CONNACK of a resume makes it active.
        var resuming = ConnectionStanding.resuming
        #expect(resuming.resume(isIn: true) == .stay && resuming == .resuming)
        resuming.connected()
        #expect(resuming == .active)
        resuming = .resuming
        #expect(resuming.pause() == .disconnect && resuming == .paused(out: false))
    }

    @Test func aStayAwayEndsWhereTheStagesTakeItOut() {
        var standing = ConnectionStanding.away
        #expect(standing.stagesTurned(in: false, connected: false) == .disconnect && standing == .out)
        #expect(standing.comeBack() == .stay && standing == .out, "the lifecycle does not bring back what the stages took out")
        #expect(standing.goAway() == .stay, "only a connection that is in and not paused goes away")
    }

    @Test func aConnectionNeverOpenedIsOpenedNotResumed() {
        var standing = ConnectionStanding.unopened(paused: false)
        #expect(standing.resume(isIn: true) == .stay && standing == .unopened(paused: false), "the ramp opens it, not a resume")
        #expect(standing.pause() == .disconnect && standing == .unopened(paused: true) && standing.countsAsPaused)
        #expect(standing.open(isIn: true) == .stay && standing == .paused(out: false), "a pause that came first holds")
        var late = ConnectionStanding.unopened(paused: true)
        #expect(late.resume(isIn: false) == .stay && late == .out, "a paused group's new connection asks its stages at the resume")
        var out = ConnectionStanding.unopened(paused: false)
        #expect(out.open(isIn: false) == .stay && out == .out)
    }
}
