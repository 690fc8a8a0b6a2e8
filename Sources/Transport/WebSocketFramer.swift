import COpenSSL
import CWslay

/// The frames of a client's WebSocket, made and read by libwslay's event API over byte buffers:
/// bytes from the broker go in with `receive(_:)` and the MQTT bytes of its binary messages come
/// out in `delivered`; MQTT bytes go in with `send(_:)` and masked frames come out in `outbound`.
/// libwslay reassembles fragmented messages, answers pings and replies to a close frame; it does
/// no I/O, so the bridge decides when to read and write, and how much to hold.
package final class WebSocketFramer {
    private var context: wslay_event_context_ptr?
    /// Bytes received and not yet framed.
    private var inbound: [UInt8] = []
    private var inboundOffset = 0
    /// The payloads of the binary messages received, in order, for the local side.
    package var delivered: [UInt8] = []
    /// Frames made, for the broker's socket.
    package var outbound: [UInt8] = []
    /// The most `outbound` takes before libwslay is told to wait: the bound of the bridge's
    /// buffer toward a slow broker.
    package let outboundLimit: Int
    /// The broker's close frame, once one came: its status code (0 for none) and reason.
    package private(set) var closeReceived: (code: UInt16, reason: String)?
    /// Why the WebSocket cannot go on (a text frame, a malformed frame), once it cannot.
    package private(set) var failure: String?

    /// MQTT's largest packet (256 MB) and its header.
    package static let maximumMessage: UInt64 = 268_435_460

    package init(outboundLimit: Int = 64 * 1024) {
        self.outboundLimit = outboundLimit
        var callbacks = wslay_event_callbacks(
            recv_callback: { _, buffer, length, _, user in
                WebSocketFramer.from(user).read(into: buffer!, length)
            },
            send_callback: { _, data, length, _, user in
                WebSocketFramer.from(user).write(data!, length)
            },
            genmask_callback: { _, buffer, length, _ in
                RAND_bytes(buffer, Int32(length)) == 1 ? 0 : -1
            },
            on_frame_recv_start_callback: nil, on_frame_recv_chunk_callback: nil, on_frame_recv_end_callback: nil,
            on_msg_recv_callback: { _, argument, user in
                WebSocketFramer.from(user).received(argument!.pointee)
            })
        let rc = wslay_event_context_client_init(&context, &callbacks, Unmanaged.passUnretained(self).toOpaque())
        precondition(rc == 0, "wslay_event_context_client_init: out of memory")
        wslay_event_config_set_max_recv_msg_length(context, Self.maximumMessage)
    }

    deinit {
        wslay_event_context_free(context)
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> WebSocketFramer {
        Unmanaged<WebSocketFramer>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Frames `bytes` from the broker: complete messages land in `delivered`, a close frame in
    /// `closeReceived` (and its reply in `outbound`, after `produce()`). False once the
    /// WebSocket cannot go on (`failure` says why).
    @discardableResult
    package func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        if inboundOffset == inbound.count {
            inbound.removeAll(keepingCapacity: true)
            inboundOffset = 0
        }
        inbound.append(contentsOf: bytes)
        guard wslay_event_get_read_enabled(context) == 1 else { return closeReceived != nil }
        if wslay_event_recv(context) != 0 {
            failure = failure ?? "the broker sent a WebSocket frame that is not valid"
            return false
        }
        // A frame that breaks the protocol (masked, a bad opcode or length) makes libwslay queue
        // a close of its own and read no more.
        if failure == nil, closeReceived == nil, wslay_event_get_read_enabled(context) == 0 {
            failure =
                "the broker sent a WebSocket frame that breaks the protocol (closed with \(wslay_event_get_status_code_sent(context)))"
        }
        return failure == nil
    }

    /// Queues `bytes` as one binary message (libwslay copies them).
    package func send(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, wslay_event_get_write_enabled(context) == 1 else { return }
        var message = wslay_event_msg(
            opcode: UInt8(WSLAY_BINARY_FRAME.rawValue), msg: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
            msg_length: bytes.count)
        _ = wslay_event_queue_msg(context, &message)
    }

    /// Queues a close frame with `code` (1000: normal closure); nothing is sent after it.
    package func close(code: UInt16 = 1000) {
        guard wslay_event_get_close_sent(context) == 0, wslay_event_get_write_enabled(context) == 1 else { return }
        _ = wslay_event_queue_close(context, code, nil, 0)
    }

    /// Makes frames of what is queued into `outbound`, up to its limit.
    package func produce() {
        guard wslay_event_want_write(context) == 1 else { return }
        if wslay_event_send(context) != 0 { failure = failure ?? "WebSocket framing failed" }
    }

    /// Bytes queued and not yet made into frames.
    package var queuedBytes: Int { wslay_event_get_queued_msg_length(context) }

    /// Whether frames wait to be made (messages, a pong, a close).
    package var wantsToProduce: Bool { wslay_event_want_write(context) == 1 }

    /// Whether a close frame has been made (it may still be in `outbound`).
    package var closeSent: Bool { wslay_event_get_close_sent(context) == 1 }

    /// Takes the first `count` bytes of `outbound`, written to the broker.
    package func consumeOutbound(_ count: Int) {
        outbound.removeFirst(min(count, outbound.count))
    }

    // MARK: libwslay's callbacks

    private func read(into buffer: UnsafeMutablePointer<UInt8>, _ length: Int) -> Int {
        let available = inbound.count - inboundOffset
        guard available > 0 else {
            wslay_event_set_error(context, Int32(WSLAY_ERR_WOULDBLOCK.rawValue))
            return -1
        }
        let count = min(available, length)
        inbound.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + inboundOffset, count: count)
        }
        inboundOffset += count
        return count
    }

    private func write(_ data: UnsafePointer<UInt8>, _ length: Int) -> Int {
        guard outbound.count < outboundLimit else {
            wslay_event_set_error(context, Int32(WSLAY_ERR_WOULDBLOCK.rawValue))
            return -1
        }
        outbound.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        return length
    }

    private func received(_ message: wslay_event_on_msg_recv_arg) {
        switch UInt32(message.opcode) {
        case WSLAY_BINARY_FRAME.rawValue:
            delivered.append(contentsOf: UnsafeBufferPointer(start: message.msg, count: message.msg_length))
        case WSLAY_CONNECTION_CLOSE.rawValue:
            // The payload is the 2-byte code, then the reason.
            let reason =
                message.msg_length > 2
                ? String(decoding: UnsafeBufferPointer(start: message.msg + 2, count: message.msg_length - 2), as: UTF8.self) : ""
            closeReceived = (message.status_code, reason)
        case WSLAY_TEXT_FRAME.rawValue:
            failure = "the broker sent a text frame, where MQTT over WebSockets takes binary frames only"
        default:
            break  // ping and pong: libwslay answers pings itself
        }
    }
}
