/// `broker.url` and `--url`: host, port, TLS and transport in one, as people copy them from a
/// broker's console: `mqtt://HOST:PORT`, `mqtts://…`, `ws://HOST:PORT/PATH`, `wss://…`. A user
/// name may come before the host; a password may not, since a URL shows in `ps` and in logs.
public struct BrokerURL: Sendable, Equatable {
    public enum Scheme: String, Sendable, CaseIterable {
        case mqtt, mqtts, ws, wss

        public var transport: BrokerTransport { self == .ws || self == .wss ? .websockets : .tcp }
        public var isSecure: Bool { self == .mqtts || self == .wss }

        /// The port when the URL names none: MQTT's registered ports, and HTTP's for WebSockets.
        public var defaultPort: Int {
            switch self {
            case .mqtt: 1883
            case .mqtts: 8883
            case .ws: 80
            case .wss: 443
            }
        }
    }

    public var scheme: Scheme
    public var host: String
    public var port: Int
    /// The WebSocket's path (`/mqtt` when none is given); nil for mqtt:// and mqtts://.
    public var path: String?
    public var username: String?

    /// The path a WebSocket URL without one gets, as most brokers serve MQTT there.
    public static let defaultPath = "/mqtt"

    /// Reads `text`, or throws why it is not a broker URL, in words for the flag or key it came from.
    public static func parse(_ text: String) throws(BrokerURLError) -> BrokerURL {
        guard let separator = text.firstRange(of: "://") else {
            throw BrokerURLError("'\(text)' is not a URL: write mqtt://HOST:PORT, mqtts://…, ws://HOST:PORT/PATH or wss://…")
        }
        let schemeText = text[..<separator.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else {
            let hint =
                ["tcp": "mqtt", "ssl": "mqtts", "tls": "mqtts", "http": "ws", "https": "wss"][schemeText]
                ?? Suggestion.closest(to: schemeText, among: Scheme.allCases.map(\.rawValue))
            throw BrokerURLError(
                "unknown scheme '\(schemeText)' in '\(text)': expected mqtt, mqtts, ws or wss"
                    + (hint.map { "; did you mean \($0)://?" } ?? ""))
        }
        var rest = text[separator.upperBound...]
        if let mark = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            throw BrokerURLError("'\(text)' has a query or fragment ('\(rest[mark...])'), which a broker URL cannot use")
        }
        let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
        let pathText = String(rest[pathStart...])
        rest = rest[..<pathStart]
        var username: String?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            if userInfo.contains(":") {
                throw BrokerURLError(
                    "'\(Self.withoutPassword(text))' holds a password, which would show in ps and in logs: "
                        + "give it with --password-file, DEVSIM_PASSWORD or broker.password")
            }
            guard !userInfo.isEmpty else { throw BrokerURLError("'\(text)' has an empty user name before '@'") }
            username = Self.percentDecoded(userInfo)
            rest = rest[rest.index(after: at)...]
        }
        var host = Substring(rest)
        var port = scheme.defaultPort
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw BrokerURLError("'\(text)' has something after the address: '\(after)'") }
                port = try Self.port(after.dropFirst(), in: text)
            }
        } else if let colon = host.lastIndex(of: ":") {
            port = try Self.port(host[host.index(after: colon)...], in: text)
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw BrokerURLError("'\(text)' names no host") }
        if let problem = BrokerHost.problem(with: String(host)) { throw BrokerURLError("'\(text)': \(problem)") }
        var path: String?
        switch scheme.transport {
        case .websockets:
            path = pathText.isEmpty ? Self.defaultPath : pathText
        case .tcp:
            guard pathText.isEmpty || pathText == "/" else {
                throw BrokerURLError("'\(text)' has a path ('\(pathText)'), which only ws:// and wss:// URLs take")
            }
        }
        return BrokerURL(scheme: scheme, host: String(host), port: port, path: path, username: username)
    }

    private static func port(_ text: Substring, in url: String) throws(BrokerURLError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw BrokerURLError("'\(url)': expected a port from 1 to 65535 after ':', found '\(text)'")
        }
        return port
    }

    /// The URL with its password replaced by `***`, for the message that refuses it.
    private static func withoutPassword(_ text: String) -> String {
        guard let separator = text.firstRange(of: "://"), let at = text[separator.upperBound...].firstIndex(of: "@"),
            let colon = text[separator.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }

    /// `%40` and the like, as a user name in a URL is written.
    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
