/// No framing: MQTT's bytes go to the broker and back as they are. The bridge's raw mode, for a
/// CONNECT with properties, which libmosquitto 2.0.11 sends only from a connect that blocks
/// (`mosquitto_connect_bind_v5`): it makes that connect to the bridge's local socket, which
/// does not block, and the bridge makes the TCP (and TLS) connection without blocking.
package final class PassThroughFraming: BridgeFraming {
    package var delivered: [UInt8] = []
    package private(set) var outbound: [UInt8] = []
    package var closeReceived: (code: UInt16, reason: String)? { nil }
    package var failure: String? { nil }
    package var queuedBytes: Int { 0 }
    package var wantsToProduce: Bool { false }
    /// MQTT over TCP ends with a FIN alone.
    package var closeSent: Bool { true }

    package init() {}

    package func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        delivered.append(contentsOf: bytes)
        return true
    }

    package func send(_ bytes: UnsafeRawBufferPointer) {
        outbound.append(contentsOf: bytes)
    }

    package func close(code: UInt16) {}
    package func produce() {}

    package func consumeOutbound(_ count: Int) {
        outbound.removeFirst(min(count, outbound.count))
    }
}
