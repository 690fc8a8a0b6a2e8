import MQTT

/// Where a bridge takes the MQTT bytes: the broker's WebSocket endpoint.
package struct WebSocketEndpoint: Sendable, Equatable {
    package var host: String
    package var port: Int32
    package var path: String
    /// TLS toward the broker (wss://), or nil for ws://.
    package var tls: TLSSettings?
    /// The local address to connect from (`broker.bind`), or nil for the kernel's choice.
    package var bindAddress: String?

    package init(host: String, port: Int32, path: String, tls: TLSSettings? = nil, bindAddress: String? = nil) {
        self.bindAddress = bindAddress
        self.host = host
        self.port = port
        self.path = path
        self.tls = tls
    }
}
