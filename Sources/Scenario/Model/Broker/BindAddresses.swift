#if canImport(Glibc)
    import Glibc
#endif

/// `broker.bind` and `--bind`: the local source addresses the connections are spread over, in
/// turn (connection i from address i mod n), for more connections to one broker address than
/// one source address has ephemeral ports (see `PortLimit`).
public struct BindAddresses: Sendable, Equatable {
    public var addresses: [String]
    /// Where `broker.bind` is written; `nil` for `--bind` or `DEVSIM_BIND`.
    public var location: SourceLocation?
    /// The flag or variable it came from, when not from a file.
    public var flag: String?
    /// Where each address is written in the file, for a message about one of them.
    public var places: [String: SourceLocation] = [:]

    public init(addresses: [String], location: SourceLocation? = nil, flag: String? = nil) {
        self.addresses = addresses
        self.location = location
        self.flag = flag
    }

    /// The address connection `index` (0-based, its place among its scenario's connections in
    /// the whole fleet, so every shard deals them alike) connects from.
    public func address(of index: Int) -> String { addresses[index % addresses.count] }

    /// What a message says it came from: `FILE:LINE:COLUMN: broker.bind`, or the flag.
    public var origin: String {
        if let location { return "\(location): broker.bind" }
        return flag ?? "--bind"
    }

    /// What a message about `address` says it came from: its own place in the file, or the flag.
    public func origin(of address: String) -> String {
        places[address].map { "\($0): broker.bind" } ?? origin
    }

    /// Why `text` is not a numeric IPv4 or IPv6 address (libmosquitto resolves a name, but a
    /// source address is one of this machine's, which a name would only hide); `nil` when it is.
    public static func problem(with text: String) -> String? {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1 { return nil }
        if text.contains(":"), text.filter({ $0 == ":" }).count == 1 {
            return "'\(text)' holds a port: a source address takes none (the kernel picks the port)"
        }
        return "'\(text)' is not an IP address of this machine such as 127.0.0.2 or 10.0.0.5"
    }
}
