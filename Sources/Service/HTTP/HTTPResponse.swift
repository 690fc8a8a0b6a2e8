/// An answer to a request, made on the server's loop: not `Sendable`, as its stream is the loop's.
package struct HTTPResponse {
    package var status: Int
    package var contentType: String
    package var body: [UInt8]
    package var headers: [String: String] = [:]
    /// A response that goes on (Server-Sent Events): `body` first, then what the stream is given.
    package var stream: HTTPStream?

    package init(status: Int, contentType: String = "text/plain; charset=utf-8", body: [UInt8], headers: [String: String] = [:]) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    package init(status: Int, text: String, headers: [String: String] = [:]) {
        self.init(status: status, body: Array((text.hasSuffix("\n") ? text : text + "\n").utf8), headers: headers)
    }
}
