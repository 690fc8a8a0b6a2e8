/// How MQTT reaches the broker: plain TCP (with TLS or not), or inside a WebSocket.
public enum BrokerTransport: String, Sendable, CaseIterable {
    case tcp
    case websockets
}
