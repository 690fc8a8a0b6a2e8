import MQTT

/// Where a bridge takes the MQTT bytes: the broker's WebSocket endpoint.
package struct WebSocketEndpoint: Sendable, Equatable {
    package var host: String
    package var port: Int32
    package var path: String
    /// TLS toward the broker (wss://), or nil for ws://.
    package var tls: TLSSettings?

    package init(host: String, port: Int32, path: String, tls: TLSSettings? = nil) {
        self.host = host
        self.port = port
        self.path = path
        self.tls = tls
    }
}
