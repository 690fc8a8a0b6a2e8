import MQTT

/// Where a bridge takes the MQTT bytes: the broker, and its WebSocket endpoint or none.
package struct BridgeEndpoint: Sendable, Equatable {
    package var host: String
    package var port: Int32
    /// The WebSocket's path, or nil for MQTT's bytes as they are (the raw relay that carries a
    /// CONNECT with properties: `mosquitto_connect_bind_v5` blocks on any other address).
    package var path: String?
    /// TLS toward the broker (wss://, mqtts://), or nil.
    package var tls: TLSSettings?
    /// The local address to connect from (`broker.bind`), or nil for the kernel's choice.
    package var bindAddress: String?

    package init(host: String, port: Int32, path: String?, tls: TLSSettings? = nil, bindAddress: String? = nil) {
        self.bindAddress = bindAddress
        self.host = host
        self.port = port
        self.path = path
        self.tls = tls
    }
}
