/// A request as a handler sees it, whole: libmicrohttpd has read its header and body.
package struct HTTPRequest: Sendable {
    package var method: String
    /// The path, without the query.
    package var path: String
    /// `Authorization`, if the request has one.
    package var authorization: String?
    /// `Origin` and `Host`: a browser's request from another site says whose it is.
    package var origin: String?
    package var host: String?
    package var body: [UInt8]

    package init(
        method: String, path: String, authorization: String? = nil, origin: String? = nil, host: String? = nil, body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.authorization = authorization
        self.origin = origin
        self.host = host
        self.body = body
    }
}
