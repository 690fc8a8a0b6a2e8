/// One broker a connection may go to: a host (a name or an address) and a port.
public struct BrokerAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int32

    public init(host: String, port: Int32) {
        self.host = host
        self.port = port
    }

    /// `host:port`, an IPv6 address in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
