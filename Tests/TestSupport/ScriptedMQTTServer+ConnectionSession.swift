import Glibc

extension ScriptedMQTTServer {
    /// Serves one connection on its own thread, following its script.
    struct ConnectionSession {
        let core: Core
        let attempt: Int
        let fd: Int32
        let script: Script

        /// Received bytes not yet forming a complete packet.
        private var buffer: [UInt8] = []
        private var connectReceived = false
        /// The client spoke MQTT 5, whose CONNACK carries properties.
        private var mqtt5 = false
        /// The client sent an empty client id, for the server to assign one.
        private var clientIDWasEmpty = false
        /// When the script's DISCONNECT is due (`disconnectAfterConnack`).
        private var disconnectAt: Double?
        /// When the held-back CONNACK is due.
        private var connackDueAt: Double?
        /// When the script closes the connection.
        private var closeAt: Double?
        /// Acknowledgements held back by `Script.ackDelay`, due in order.
        private var heldAcks: [(due: Double, packet: [UInt8])] = []
        /// PUBLISH packets to relay (`Script.relay`) once due, in order.
        private var heldRelays: [(due: Double, topic: String, payload: [UInt8])] = []
        /// A pipe's read end that wakes the thread for what other connections relay to it.
        private var waker: Int32 = -1

        init(core: Core, attempt: Int, fd: Int32, script: Script) {
            self.core = core
            self.attempt = attempt
            self.fd = fd
            self.script = script
        }

        mutating func run() {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
                waker = ends[0]
                core.setWaker(ends[1], for: attempt)
            }
            let reason = serve()
            core.finish(attempt: attempt, fd: fd, reason: reason)
            if waker >= 0 {
                core.setWaker(nil, for: attempt)
                close(waker)
            }
        }

        private mutating func serve() -> Connection.CloseReason {
            if script.closeOnAccept { return .scripted }
            var chunk = [UInt8](repeating: 0, count: 16384)
            while true {
                if core.isStopping { return .serverStopped }
                let now = TestClock.now()
                if let due = connackDueAt, now >= due {
                    connackDueAt = nil
                    let code = mqtt5 && script.refusesMQTT5 ? 0x84 : script.connackCode
                    let body: [UInt8] =
                        [script.sessionPresent ? 1 : 0, code]
                        + (mqtt5 ? script.connackProperties.encoded(clientIDWasEmpty: clientIDWasEmpty) : [])
                    guard send(MQTTWire.encode(header: 0x20, body: body)) else {
                        return .clientClosed
                    }
                    core.update(attempt: attempt) {
                        $0.connackSentAt = now
                        $0.connackCode = code
                    }
                    if code != 0 { return .refused }
                    if let after = script.closeAfterConnack { closeAt = now + after }
                    if mqtt5, let disconnect = script.disconnectAfterConnack { disconnectAt = now + disconnect.after }
                }
                if let closeAt, now >= closeAt { return .scripted }
                if let disconnectAt, now >= disconnectAt, let reason = script.disconnectAfterConnack?.reason {
                    _ = send(MQTTWire.encode(header: 0xE0, body: [reason, 0]))
                    return .serverDisconnected
                }
                while let held = heldAcks.first, now >= held.due {
                    heldAcks.removeFirst()
                    guard send(held.packet) else { return .clientClosed }
                }
                while let held = heldRelays.first, now >= held.due, let relay = script.relay {
                    heldRelays.removeFirst()
                    core.relay(topic: held.topic, delivered: relay.topic(held.topic), payload: held.payload)
                }
                for delivery in core.takeDeliveries(for: attempt) {
                    let body = MQTTWire.string(delivery.topic) + (mqtt5 ? [0] : []) + delivery.payload
                    guard send(MQTTWire.encode(header: 0x30, body: body)) else { return .clientClosed }
                }

                // Wake up for the next scripted event, and at least every 50 ms to notice stop().
                var timeout = 0.05
                for deadline in [connackDueAt, closeAt, disconnectAt, heldAcks.first?.due, heldRelays.first?.due].compactMap({ $0 }) {
                    timeout = min(timeout, max(0, deadline - now))
                }
                var pollers = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: waker, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&pollers, waker >= 0 ? 2 : 1, Int32((timeout * 1000).rounded(.up)))
                if ready > 0, pollers[1].revents != 0 {
                    var bytes = [UInt8](repeating: 0, count: 64)
                    _ = read(waker, &bytes, bytes.count)
                }
                if ready == 0 || (ready < 0 && errno == EINTR) || pollers[0].revents == 0 { continue }
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                // End of file or a reset: the client went away without DISCONNECT.
                guard count > 0 else { return .clientClosed }
                buffer.append(contentsOf: chunk[0..<count])
                do {
                    while let packet = try MQTTWire.nextPacket(from: &buffer) {
                        if let reason = try handle(packet) { return reason }
                    }
                } catch {
                    return .protocolError(error.reason)
                }
            }
        }

        /// Reacts to one packet; returns a reason when the connection must end.
        private mutating func handle(_ packet: MQTTWire.Packet) throws(MQTTWire.Malformed) -> Connection.CloseReason? {
            let now = TestClock.now()
            var reader = MQTTWire.Reader(packet.body)
            if packet.type != 1 && !connectReceived {
                return .protocolError("packet type \(packet.type) before CONNECT")
            }
            switch packet.type {
            case 1:  // CONNECT
                guard !connectReceived else { return .protocolError("second CONNECT") }
                let connect = try Connect(body: packet.body)
                connectReceived = true
                mqtt5 = connect.protocolLevel == 5
                clientIDWasEmpty = connect.clientID.isEmpty
                core.update(attempt: attempt) {
                    $0.connect = connect
                    $0.connectReceivedAt = now
                }
                if mqtt5, script.closesMQTT5Connect { return .scripted }
                if connect.protocolLevel == 3, !(1...23).contains(connect.clientID.utf8.count) {
                    // MQTT 3.1 allows 1 to 23 characters: identifier rejected, as aedes answers.
                    core.update(attempt: attempt) {
                        $0.connackSentAt = now
                        $0.connackCode = 2
                    }
                    _ = send(MQTTWire.encode(header: 0x20, body: [0, 2]))
                    return .refused
                }
                if script.sendConnack { connackDueAt = now + script.connackDelay }
            case 3:  // PUBLISH
                let qos = (packet.flags >> 1) & 0x03
                guard qos < 3 else { return .protocolError("PUBLISH with QoS 3") }
                let topic = try reader.string()
                let packetID = qos > 0 ? try reader.uint16() : nil
                if mqtt5 { try reader.skipProperties() }
                let receivedPerSecond = core.record(
                    Publish(
                        attempt: attempt, receivedAt: now, topic: topic, payload: reader.rest, qos: qos,
                        packetID: packetID, retain: packet.flags & 0x01 != 0, duplicate: packet.flags & 0x08 != 0))
                if let relay = script.relay { heldRelays.append((now + relay.delay(), topic, Array(reader.rest))) }
                if let packetID, script.ackPublishes {
                    // QoS 1 is done with PUBACK; QoS 2 continues with PUBREC → PUBREL → PUBCOMP,
                    // unless its PUBREC refuses it.
                    let puback = qos == 1 || script.acksQoS2WithPuback
                    let reason = mqtt5 ? script.publishReasonCode?(topic) ?? 0 : 0
                    if reason >= 0x80 { core.update(attempt: attempt) { $0.refusedPublishes += 1 } }
                    let ack = MQTTWire.encode(
                        header: puback ? 0x40 : 0x50, body: Self.bytes(packetID) + (reason == 0 ? [] : [reason, 0]))
                    if let delay = script.ackDelay?(receivedPerSecond), delay > 0 || !heldAcks.isEmpty {
                        // In order: one held back holds back those after it.
                        heldAcks.append((max(now + delay, heldAcks.last?.due ?? 0), ack))
                    } else if !send(ack) {
                        return .clientClosed
                    }
                }
            case 6:  // PUBREL
                let packetID = try reader.uint16()
                if script.ackPublishes, !send(MQTTWire.encode(header: 0x70, body: Self.bytes(packetID))) {
                    return .clientClosed
                }
            case 8:  // SUBSCRIBE
                let packetID = try reader.uint16()
                if mqtt5 { try reader.skipProperties() }
                var granted: [UInt8] = []
                var filters: [String] = []
                while !reader.isAtEnd {
                    let filter = try reader.string()
                    let asked = min(try reader.byte() & 0x03, 2)
                    filters.append(filter)
                    granted.append(script.subscribeReasonCode?(filter) ?? asked)
                }
                core.update(attempt: attempt) {
                    $0.subscriptions += filters
                    $0.subscribePackets.append(SubscribePacket(filters: filters, bytes: packet.size))
                }
                let body = Self.bytes(packetID) + (mqtt5 ? [0] : []) + granted
                guard send(MQTTWire.encode(header: 0x90, body: body)) else { return .clientClosed }
                for filter in filters {
                    for message in script.publishAfterSubscribe?(filter) ?? [] {
                        let publish = MQTTWire.string(message.topic) + (mqtt5 ? [0] : []) + message.payload
                        guard send(MQTTWire.encode(header: 0x30, body: publish)) else { return .clientClosed }
                    }
                }
            case 10:  // UNSUBSCRIBE
                let packetID = try reader.uint16()
                guard send(MQTTWire.encode(header: 0xB0, body: Self.bytes(packetID))) else { return .clientClosed }
            case 12:  // PINGREQ
                core.update(attempt: attempt) { $0.pingsReceivedAt.append(now) }
                if script.answerPings, !send(MQTTWire.encode(header: 0xD0)) { return .clientClosed }
            case 14:  // DISCONNECT
                return .clientDisconnected
            case 4, 5, 7:  // PUBACK, PUBREC, PUBCOMP: the server never publishes, nothing to do.
                break
            default:
                return .protocolError("unexpected packet type \(packet.type)")
            }
            return nil
        }

        /// Writes all of `bytes`; `false` if the client is gone.
        private func send(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes {
                    // MSG_NOSIGNAL: a vanished client must not kill the test process with SIGPIPE.
                    Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }

        private static func bytes(_ value: UInt16) -> [UInt8] {
            [UInt8(value >> 8), UInt8(value & 0xff)]
        }
    }
}
