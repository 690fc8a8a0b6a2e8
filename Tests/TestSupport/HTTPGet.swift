import Glibc

/// One HTTP/1.1 request to 127.0.0.1, the test's way of asking devsim's endpoint: a socket, the
/// request with `Connection: close`, and everything read back.
public enum HTTPGet {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String
    }

    /// What a stream (Server-Sent Events) at `path` sends within `seconds`, as text, chunked
    /// framing and all; `during` runs once the stream is open.
    public static func stream(port: Int, path: String, seconds: Double, during: () -> Void = {}) throws(TestSupportError) -> String {
        let socket = try connected(to: port, readTimeout: 0.1)
        defer { close(socket) }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n"
        _ = request.withCString { write(socket, $0, strlen($0)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let end = TestClock.now() + seconds
        var ran = false
        while TestClock.now() < end {
            let count = read(socket, &buffer, buffer.count)
            if count > 0 { received += buffer[..<count] } else if count == 0 { break }
            if !ran, !received.isEmpty {
                ran = true
                during()
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    public static func request(
        port: Int, path: String, method: String = "GET", headers: [String: String] = [:], body: String = "", timeout: Double = 5
    ) throws(TestSupportError) -> Response {
        let socket = try connected(to: port, readTimeout: timeout)
        defer { close(socket) }
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + body
        _ = text.withCString { write(socket, $0, strlen($0)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(socket, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[..<count]
        }
        let whole = String(decoding: received, as: UTF8.self)
        guard let split = whole.firstRange(of: "\r\n\r\n") else { throw TestSupportError("no HTTP answer from port \(port): '\(whole)'") }
        let lines = whole[..<split.lowerBound].split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
        return Response(status: status, headers: headers, body: String(whole[split.upperBound...]))
    }

    /// A TCP connection to 127.0.0.1:`port` whose reads give up after `readTimeout` seconds.
    private static func connected(to port: Int, readTimeout: Double) throws(TestSupportError) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestSupportError("socket: \(Loopback.errnoText())") }
        var time = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - readTimeout.rounded(.down)) * 1e6))
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = Loopback.socketAddress(port: UInt16(port))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let reason = Loopback.errnoText()
            close(socket)
            throw TestSupportError("cannot connect to 127.0.0.1:\(port): \(reason)")
        }
        return socket
    }
}
