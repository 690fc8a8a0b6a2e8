import Foundation
import Testing
import TestSupport

/// Issue 24: what a broker answers, as a run takes it. A scripted server stages what no broker
/// here does on demand (a close of an MQTT 5 CONNECT, a 256-byte Maximum Packet Size, refusing
/// SUBACKs, a DISCONNECT with a reason); mosquitto stages the rest.
@Suite(.tags(.integration), .notUnitOnly) struct BrokerAnswerRunTests {
    private func scenario(_ broker: String..., count: Int = 1, publish: String = "5/s", qos: Int = 1, extra: String? = nil)
        throws -> String
    {
        try ScenarioText(
            broker: broker, top: extra.map { [$0] } ?? [], count: count, topic: "verify/device-{index}", publish: publish, qos: qos
        ).file("answers.yaml")
    }

    /// Item 1: RabbitMQ 3.10 closes an MQTT 5 CONNECT without a CONNACK; the verifier falls back
    /// to the fleet's MQTT 3.1.1 as on a refusal.
    @Test func aCloseOfTheVerifiersMQTT5ConnectIsAFallback() throws {
        let server = try ScriptedMQTTServer(script: .init(closesMQTT5Connect: true))
        let file = try scenario()
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "2s", "--verify"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("verify: the broker closed the connection of an MQTT 5 CONNECT without a CONNACK"), "\(result.stderr)")
        let verifier = server.connections.filter { $0.connect?.clientID.hasPrefix("devsim-verify") == true }
        #expect(verifier.compactMap(\.connect?.protocolLevel) == [5, 4], "one MQTT 5 attempt, then MQTT 3.1.1")
        #expect(verifier.last?.subscriptions == ["verify/+"], "the fallback connection subscribed")
    }

    /// Issue 38, item 21: each of the verifier's connections fell back and said so, naming
    /// mosquitto's window against brokers that are not mosquitto. Said once, in words.
    @Test func theVerifiersFallbackIsSaidOnceInWords() throws {
        let server = try ScriptedMQTTServer(script: .init(closesMQTT5Connect: true))
        let file = try scenario(count: 2)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "2s", "--verify", "--loops", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let verifiers = Set(server.connections.compactMap(\.connect?.clientID).filter { $0.hasPrefix("devsim-verify") })
        #expect(verifiers.count == 2, "a connection per loop, each falling back: \(verifiers)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("the subscriber speaks the fleet's MQTT 3.1.1") }
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(
            lines.first?.hasSuffix(
                "with which the broker alone sets how many messages it sends unacknowledged, which may keep it from keeping up at high rates"
            ) == true, "\(result.stderr)")
    }

    /// Item 7: a fleet of MQTT 5 that such a broker closes is told what to try.
    @Test func aFleetOfMQTT5ThatTheBrokerClosesIsToldToTryMQTT311() throws {
        let server = try ScriptedMQTTServer(script: .init(closesMQTT5Connect: true))
        let file = try scenario("protocol: mqtt5")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--connect-timeout", "2s"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "cannot connect: the broker closed the connection without a CONNACK; the broker may not speak MQTT 5: try --protocol mqtt311"
            ),
            "\(result.stderr)")
    }

    /// Issue 38, item 18: with `--verify` too. The verifier, of a fleet of MQTT 5, has nothing to
    /// fall back to: its failure tells the devices at once (not after 5 s, the whole connect
    /// timeout here, in which no device tried), and both say what to try.
    @Test func aVerifierThatTheBrokerClosesHoldsNoFleetAndIsToldToTryMQTT311() throws {
        let server = try ScriptedMQTTServer(script: .init(closesMQTT5Connect: true))
        let file = try scenario("protocol: mqtt5")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--connect-timeout", "5s", "--verify"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(!result.stderr.contains("subscriptions not acknowledged"), "the fleet did not wait for the verifier: \(result.stderr)")
        let hint =
            "cannot connect: the broker closed the connection without a CONNACK; the broker may not speak MQTT 5: try --protocol mqtt311"
        #expect(result.stderr.contains("verify: " + hint), "\(result.stderr)")
        #expect(result.stderr.contains("no connection within 5.0s: " + hint), "the devices tried: \(result.stderr)")
        #expect(server.connections.contains { $0.connect?.clientID == "d-1" })
    }

    /// Item 2: the Paho test broker says 256 bytes; the verifier's SUBSCRIBE for 50 topics is
    /// larger, and is split into SUBSCRIBEs that fit.
    @Test func theVerifiersSubscriptionsFitTheMaximumPacketSize() throws {
        let server = try ScriptedMQTTServer(script: .init(connackProperties: .init(maximumPacketSize: 256)))
        let file = try scenario(count: 50, publish: "1/s")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "1s", "--verify"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("Packet larger"), "\(result.stderr)")
        let packets = server.connections.filter { $0.connect?.clientID.hasPrefix("devsim-verify") == true }.flatMap(\.subscribePackets)
        #expect(Set(packets.flatMap(\.filters)) == Set((1...50).map { "verify/device-\($0)" }))
        #expect(packets.allSatisfy { $0.bytes <= 256 } && packets.count > 1, "\(packets.map(\.bytes))")
    }

    /// Item 2: a payload too large for the broker is refused before it is sent, counted as
    /// failed, and the limit named.
    @Test func aMessageOverTheMaximumPacketSizeFailsNamingTheLimit() throws {
        let server = try ScriptedMQTTServer(script: .init(connackProperties: .init(maximumPacketSize: 256)))
        let file = try RunFiles.scenario(
            "large.yaml",
            """
            broker: { protocol: mqtt5 }
            devices:
              - name: d
                topic: t
                publish: 10/s
                payload: { fields: { pad: { constant: "\(String(repeating: "x", count: 300))" } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "1s"], report: true)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report["published"] as? Int == 0 && (report["failed"] as? Int ?? 0) > 0, "\(report)")
        #expect(RunFiles.accountsForEveryTick(report))
        #expect(
            result.stderr.contains("bytes makes a packet over the broker's Maximum Packet Size of 256 bytes (its CONNACK)"),
            "\(result.stderr)")
        #expect(server.publishes.isEmpty)
    }

    /// Item 2: the broker's Receive Maximum bounds the window devsim keeps: beyond it,
    /// libmosquitto would hold the messages back while devsim timed them as in flight.
    @Test func theWindowIsNoLargerThanTheReceiveMaximum() throws {
        let server = try ScriptedMQTTServer(script: .init(ackDelay: { _ in 0.1 }, connackProperties: .init(receiveMaximum: 1)))
        let file = try scenario("protocol: mqtt5", publish: "20/s")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "2s", "--ack-timeout", "1s"], report: true)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        // Handed over 16 at a time, the last of them waited 1.6 s behind the others.
        #expect(report["ackTimeouts"] as? Int == 0, "each waited its 0.1 s, one at a time: \(report)")
        #expect((report["acknowledged"] as? Int ?? 0) > 0 && report["acknowledged"] as? Int == report["published"] as? Int, "\(report)")
    }

    /// Item 2: libmosquitto pings at the broker's Server Keep Alive; the watch for silence must
    /// wait as long, or it drops a connection the broker keeps.
    @Test func theSilenceWatchFollowsTheServerKeepAlive() throws {
        let server = try ScriptedMQTTServer(script: .init(connackProperties: .init(serverKeepAlive: 30)))
        let file = try scenario("protocol: mqtt5", "keepalive: 5s", publish: "1/60s", qos: 0)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "9s"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("nothing from the broker"), "\(result.stderr)")
        #expect(server.connections.count == 1)
    }

    /// Item 6: the reason of the broker's DISCONNECT is named.
    @Test func aDisconnectFromTheBrokerIsNamedWithItsReason() throws {
        let server = try ScriptedMQTTServer(scripts: [.init(disconnectAfterConnack: (after: 0.3, reason: 0x8B)), .init()])
        let file = try scenario("protocol: mqtt5")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "2s"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("connection lost: the broker sent DISCONNECT: Server shutting down (0x8B)"), "\(result.stderr)")
    }

    /// Item 3: a verifier whose subscription the broker refused measured nothing: its figures
    /// are marked invalid, with the reason, and `--expect lost…` is not judged.
    @Test func aVerifierThatNeverSubscribedJudgesNothing() throws {
        let server = try ScriptedMQTTServer(script: .init(subscribeReasonCode: { _ in 0x87 }))
        let file = try scenario()
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "2s", "--verify", "--expect", "lost==0"], report: true)
        #expect(result.status == 4, "\(result.stderr)")
        let report = try result.report()
        let verify = try #require(report["verify"] as? [String: Any])
        let invalid = verify["invalid"] as? String ?? ""
        #expect(invalid.hasPrefix("the broker refused the subscription to 'verify/+': Not authorized (0x87)"), "\(verify)")
        #expect(report["lostPercent"] == nil)
        let verdict = try #require((report["expectations"] as? [[String: Any]])?.first)
        #expect(verdict["message"] as? String == "not judged: " + invalid, "\(verdict)")
        let finished = result.stderr.split(separator: "\n").first { $0.contains("finished:") } ?? ""
        #expect(finished.contains("verify: not judged: the broker refused the subscription"), "\(finished)")
        #expect(result.stderr.split(separator: "\n").last?.contains("verify: not judged:") == true, "\(result.stderr)")
    }

    /// Item 5: the wait for the verifier's subscriptions is part of the connect timeout, not
    /// added to it (a closed port: 3.1 s without --verify, 6.0 s with).
    @Test func theVerifierDoesNotDoubleTheConnectTimeout() throws {
        let port = try Loopback.freePort()
        let file = try scenario()
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: port, ["--verify", "--connect-timeout", "3s"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("no connection within 3.0s"), "\(result.stderr)")
        // From devsim's own log, its start to its giving up: no process start-up in the figure.
        let lines = result.stderr.split(separator: "\n")
        let started = try #require(lines.first { $0.hasSuffix(" starting") }.flatMap(Self.time))
        let gaveUp = try #require(lines.first { $0.contains("no connection within") }.flatMap(Self.time))
        #expect(gaveUp - started < 4.5, "the connect timeout, and not twice it: \(gaveUp - started) s")
    }

    /// Seconds of the day of a log line's ISO 8601 timestamp (`2026-12-03T08:12:36.145Z …`).
    private static func time(_ line: Substring) -> Double? {
        let clock = line.prefix(24).dropFirst(11).dropLast()  // 08:12:36.145
        let parts = clock.split(separator: ":").compactMap { Double($0) }
        return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
    }

    /// Item 5: a refusal another attempt may not get (server unavailable, while a broker starts)
    /// is tried again; only one that would be refused as often stops the verifier.
    @Test func theVerifierTriesAgainAfterARefusalThatPasses() throws {
        let server = try ScriptedMQTTServer(scripts: [.init(connackCode: 0x88), .init()])
        let file = try scenario()
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "2s", "--verify"], report: true)
        #expect(result.status == 0, "\(result.stderr)")
        let verify = try #require(try result.report()["verify"] as? [String: Any])
        #expect(verify["invalid"] == nil, "\(verify)")
        #expect(result.stderr.contains("verify: connection refused: Server unavailable"), "\(result.stderr)")
        let verifier = server.connections.filter { $0.connect?.clientID.hasPrefix("devsim-verify") == true }
        #expect(verifier.count >= 2 && verifier.last?.subscriptions == ["verify/+"], "\(verifier.map(\.connackCode))")
    }

    /// Item 4: a broker whose ACL lets each device read and write its own topic alone (by client
    /// id) hides every topic from a verifier that connects as a device: named as such, not as
    /// subscribers that fell behind. With an identity of its own (`verify:`) it measures them all.
    @Test func theVerifierConnectsAsItsOwnUser() throws {
        let folder = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let acl = folder.appendingPathComponent("acl").path
        try "pattern readwrite verify/%c\nuser checker\ntopic read verify/#\n".write(toFile: acl, atomically: true, encoding: .utf8)
        let broker = try MosquittoBroker(
            users: ["device": "d-pass", "checker": "c-pass"], allowAnonymous: false, extraConfig: ["acl_file \(acl)"])
        for identity in ["", "verify: { username: checker, password: c-pass, clientId: \"checker-{index}\" }"] {
            let file = try RunFiles.scenario(
                "acl.yaml",
                """
                broker: { username: device, password: d-pass }
                \(identity)
                devices:
                  - { name: d, count: 3, topic: "verify/{id}", publish: 3/s, qos: 1, payload: { fields: { seq: { counter: 0 } } } }
                """)
            defer { RunFiles.removeFolder(of: file) }
            let result = try DevsimRun(file, port: broker.port, ["--duration", "3s", "--verify"], report: true)
            #expect(result.status == 0, "\(result.stderr)")
            let report = try result.report()
            let verify = try #require(report["verify"] as? [String: Any])
            if identity.isEmpty {
                #expect(verify["silentTopics"] as? Int == 3 && verify["fellBehind"] as? Bool == false, "as a device: \(verify)")
                #expect(
                    result.stderr.split(separator: "\n").last?.contains("verify: of 3 topics nothing was received") == true,
                    "\(result.stderr)")
                #expect(!result.stderr.contains("fell behind"), "\(result.stderr)")
            } else {
                #expect(verify["silentTopics"] == nil && verify["lost"] as? Int == 0, "as the checker: \(verify)")
                #expect(verify["received"] as? Int == report["published"] as? Int, "\(verify)")
                let log = try String(contentsOfFile: broker.logPath, encoding: .utf8)
                #expect(log.contains(" as checker-1 ") && log.contains("u'checker'"), "its own client id and user")
            }
        }
    }

    /// Item 5: what the devices publish while the verifier is away (here, knocked off by a
    /// client that takes its client id) could not reach it: counted apart, not as the broker's
    /// loss.
    @Test func whatFellWhileTheVerifierWasAwayIsNotTheBrokersLoss() throws {
        let broker = try MosquittoBroker()
        let file = try scenario(count: 5, publish: "20/s", extra: "verify: { clientId: checker }")
        defer { RunFiles.removeFolder(of: file) }
        let process = try DevsimRun.start(file, port: broker.port, ["--duration", "3s", "--verify", "--loops", "1"], report: true)
        #expect(process.waitForOutput(containing: "starting", inStderr: true, timeout: 10))
        TestClock.sleep(1)
        // A CONNECT with the verifier's client id: the broker drops the verifier's connection.
        _ = try MosquittoPub.run(port: broker.port, ["-i", "checker", "-t", "x", "-m", "y"], timeout: 10)
        #expect(process.waitUntilExit(timeout: 30) == 0, "\(process.stderr)")
        #expect(process.stderr.contains("verify: subscriber connection lost"), "\(process.stderr)")
        let report = try RunFiles.report(file + ".json")
        let verify = try #require(report["verify"] as? [String: Any])
        let published = report["published"] as? Int ?? 0, received = verify["received"] as? Int ?? 0
        let lost = verify["lost"] as? Int ?? -1, away = verify["missedWhileAway"] as? Int ?? 0
        #expect(away > 0 && received + lost + away == published, "\(verify), published \(published)")
        // What was on its way to it as it went, or published before its loop saw the loss, is
        // counted lost: the messages of a few milliseconds, not of its 100 ms or more away.
        #expect(lost < away, "\(verify)")
    }
}
