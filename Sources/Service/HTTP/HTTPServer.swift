import CMicroHTTPD
import Glibc
import Reactor

/// An HTTP server on a Reactor loop of its own ("devsim-http"): libmicrohttpd without a thread
/// of its own (`MHD_USE_EPOLL`), its epoll descriptor an event source of the loop, `MHD_run` on
/// readiness and at the timeout it asks for. No thread pool, no HTTP parser of ours. Requests are
/// answered on the loop's thread, one at a time, by `handler`. Any thread may use it: what it
/// serves with is its loop's (`HTTPDaemon`, in a `LoopBound`).
package final class HTTPServer: Sendable {
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The port it listens on (the one asked for, or the kernel's choice for 0).
    package let port: Int
    private let daemon: LoopBound<HTTPDaemon>

    /// The loop a server runs on, for a caller that binds what its handler reaches to it first
    /// (`init(address:loop:handler:)`).
    package static func makeLoop() throws(HTTPServerError) -> EventLoop {
        do {
            return try EventLoop(name: "devsim-http")
        } catch {
            throw HTTPServerError("cannot start the HTTP loop: \(error)")
        }
    }

    /// Listens on `address` and serves with `handler` from now on.
    package convenience init(address: HTTPAddress, handler: @escaping Handler) throws(HTTPServerError) {
        try self.init(address: address, loop: try Self.makeLoop(), handler: handler)
    }

    /// Listens on `address` and serves with `handler` from now on, on `loop` (`makeLoop()`),
    /// which has not started: it starts here, and stops with the server.
    package init(address: HTTPAddress, loop: EventLoop, handler: @escaping Handler) throws(HTTPServerError) {
        let daemon = LoopBound(try HTTPDaemon(address: address, loop: loop, handler: handler), on: loop)
        port = daemon.value.port
        self.daemon = daemon
        do {
            try loop.start()
        } catch {
            daemon.value.stopDaemon()
            throw HTTPServerError("cannot start the HTTP loop: \(error)")
        }
        daemon.execute { $0.begin() }
    }

    /// Stops serving and closes every connection: `MHD_stop_daemon`, on the loop's thread.
    /// What the streams were given last (the run's end) is written first, for a second at most.
    /// A server stopped already is left as it is.
    package func stop() {
        do { try daemon.submit { $0.stop() } } catch { return }
        daemon.loop.stop()
    }

    /// Runs `job` on the server's loop, soon; throws, and never runs it, once the server has
    /// stopped (`EventLoop.submit`).
    package func submit(_ job: @escaping @Sendable () -> Void) throws(EventLoopStopped) {
        try daemon.loop.submit(job)
    }

    /// Runs `body` on the server's loop every `interval`, for as long as it serves.
    package func repeating(every interval: Duration, _ body: @escaping @Sendable () -> Void) {
        daemon.execute { $0.repeating(every: MonotonicClock.nanoseconds(interval), body) }
    }
}

/// libmicrohttpd's daemon and what it serves, on the server's loop, whose it is: its event
/// source and timer, the repeating jobs, the open streams.
private final class HTTPDaemon {
    let port: Int
    let loop: EventLoop
    private let daemon: OpaquePointer
    private let handler: HTTPServer.Handler
    /// Lives as long as the server; the loop holds its sources unretained.
    private var source: DaemonSource?
    private var timer: Timer?

    /// Listens on `address`; serves once its loop runs `begin()`.
    init(address: HTTPAddress, loop: EventLoop, handler: @escaping HTTPServer.Handler) throws(HTTPServerError) {
        self.handler = handler
        self.loop = loop
        let context = Context()
        var started: OpaquePointer?
        address.withSocketAddress { address in
            started = devsim_mhd_start(
                address,
                { context, connection, url, method, _, upload, uploadSize, requestContext in
                    Context.from(context).server?.access(
                        connection: connection, url: url, method: method, upload: upload, uploadSize: uploadSize,
                        requestContext: requestContext) ?? MHD_Result.NO
                }, Unmanaged.passUnretained(context).toOpaque(),
                { _, _, requestContext, _ in
                    // A request ended, answered or not: its body, if one was being read, goes.
                    if let body = requestContext?.pointee { Unmanaged<RequestBody>.fromOpaque(body).release() }
                    requestContext?.pointee = nil
                })
        }
        guard let started else {
            throw HTTPServerError("cannot listen on \(address): \(String(cString: strerror(errno)))")
        }
        daemon = started
        port = Int(devsim_mhd_port(started))
        self.context = context
        context.server = self
    }

    /// Watches the daemon's epoll descriptor, and runs it.
    func begin() {
        let source = DaemonSource(server: self, descriptor: devsim_mhd_epoll_fd(daemon))
        self.source = source
        source.registration = loop.register(source)
        let timer = Timer(on: loop)
        timer.target = source
        self.timer = timer
        run()
    }

    /// `MHD_stop_daemon` of a daemon that never served: its loop did not start.
    func stopDaemon() {
        MHD_stop_daemon(daemon)
    }

    /// Holds the server for libmicrohttpd's callbacks, which outlive no `stop()`.
    private let context: Context

    private final class Context {
        weak var server: HTTPDaemon?

        static func from(_ pointer: UnsafeMutableRawPointer?) -> Context {
            Unmanaged<Context>.fromOpaque(pointer!).takeUnretainedValue()
        }
    }

    /// A request's body as it arrives, between libmicrohttpd's calls.
    private final class RequestBody {
        var bytes: [UInt8] = []
    }

    /// Stops serving and closes every connection: `MHD_stop_daemon`. What the streams were given
    /// last (the run's end) is written first, for a second at most.
    func stop() {
        stopping = true
        timer?.cancel()
        for ticker in tickers { ticker.timer.cancel() }
        tickers.removeAll()
        flushStreams(within: 1_000_000_000)
        for stream in streams {
            stream.isClosed = true
            if let connection = stream.suspended {
                stream.suspended = nil
                MHD_resume_connection(connection)
            }
        }
        streams.removeAll()
        // The resumed streams read their end, and their connections close.
        _ = MHD_run(daemon)
        if let registration = source?.registration { loop.deregister(registration) }
        source = nil
        MHD_stop_daemon(daemon)
    }

    /// Ends every stream once its bytes are written, and runs the daemon until they are, or
    /// `nanoseconds` have passed: a client that reads nothing does not hold the stop longer.
    private func flushStreams(within nanoseconds: UInt64) {
        for stream in streams where !stream.isClosed {
            stream.isEnding = true
            if let connection = stream.suspended {
                stream.suspended = nil
                MHD_resume_connection(connection)
            }
        }
        let deadline = MonotonicClock.now() &+ nanoseconds
        while streams.contains(where: { !$0.isClosed }), MonotonicClock.now() < deadline, let descriptor = source?.descriptor {
            _ = MHD_run(daemon)
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, 10)
        }
    }

    /// Runs `body` every `interval` nanoseconds, for as long as it serves.
    func repeating(every interval: UInt64, _ body: @escaping @Sendable () -> Void) {
        let ticker = Ticker(interval: interval, body: body, loop: loop)
        tickers.append(ticker)
        ticker.timer.schedule(at: MonotonicClock.now() &+ ticker.interval)
    }

    private var tickers: [Ticker] = []
    /// Set by `stop()`: no new stream, no stream sleeps, the timer is left alone.
    private var stopping = false
    /// The streams still open: a stopping daemon must resume the suspended ones first
    /// (`MHD_stop_daemon` aborts the process while a connection is suspended).
    private var streams: [HTTPStream] = []

    private final class Ticker: TimerTarget {
        let interval: UInt64
        let body: @Sendable () -> Void
        let timer: Timer

        init(interval: UInt64, body: @escaping @Sendable () -> Void, loop: EventLoop) {
            self.interval = interval
            self.body = body
            timer = Timer(on: loop)
            timer.target = self
        }

        func timerFired(_ timer: Timer, now: UInt64) {
            body()
            timer.schedule(at: now &+ interval)
        }
    }

    /// A stream was given something to send: its connection wakes, and the daemon runs soon;
    /// not at once, since this may be inside one of libmicrohttpd's callbacks, which `MHD_run`
    /// must not reenter (a request's handler that sends an event would be called again).
    fileprivate func wake(_ stream: HTTPStream) {
        if let connection = stream.suspended {
            stream.suspended = nil
            MHD_resume_connection(connection)
        }
        if !stopping { timer?.schedule(at: MonotonicClock.now()) }
    }

    /// `MHD_run`, then the next deadline libmicrohttpd asks for.
    fileprivate func run() {
        _ = MHD_run(daemon)
        var timeout: UInt64 = 0
        if MHD_get_timeout(daemon, &timeout) == MHD_Result.YES {
            timer?.schedule(at: MonotonicClock.now() &+ UInt64(timeout) * 1_000_000)
        } else {
            timer?.cancel()
        }
    }

    /// libmicrohttpd's access handler: called when a request's header is in, with each piece of
    /// its body, and once more when the body is whole, which is when `handler` answers.
    private func access(
        connection: OpaquePointer?, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>?,
        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> MHD_Result {
        guard let connection, let requestContext, let uploadSize else { return MHD_Result.NO }
        guard let pending = requestContext.pointee else {
            requestContext.pointee = Unmanaged.passRetained(RequestBody()).toOpaque()
            return MHD_Result.YES
        }
        let body = Unmanaged<RequestBody>.fromOpaque(pending).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload, body.bytes.count < Self.maximumBody {
                body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee))
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        let path = url.map { String(cString: $0) } ?? "/"
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET",
            path: String(path.prefix { $0 != "?" }),
            authorization: MHD_lookup_connection_value(connection, .HEADER_KIND, "Authorization").map { String(cString: $0) },
            origin: MHD_lookup_connection_value(connection, .HEADER_KIND, "Origin").map { String(cString: $0) },
            host: MHD_lookup_connection_value(connection, .HEADER_KIND, "Host").map { String(cString: $0) },
            body: body.bytes)
        let answer = body.bytes.count >= Self.maximumBody ? HTTPResponse(status: 413, text: "request body too large") : handler(request)
        if let stream = answer.stream { return queueStream(stream, answer, on: connection) }
        return answer.body.withUnsafeBytes { bytes in
            guard
                let response = MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            else { return MHD_Result.NO }
            defer { MHD_destroy_response(response) }
            Self.addHeaders(of: answer, to: response)
            return MHD_queue_response(connection, UInt32(answer.status), response)
        }
    }

    /// A response of unknown length whose bytes come from `stream` as it is given them; the
    /// connection sleeps (`MHD_suspend_connection`) while there is nothing to send.
    private func queueStream(_ stream: HTTPStream, _ answer: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        if stopping { stream.isClosed = true }
        stream.server = self
        stream.connection = connection
        stream.pending = answer.body
        streams.removeAll { $0.isClosed }
        streams.append(stream)
        let context = Unmanaged.passRetained(stream).toOpaque()
        guard
            let response = MHD_create_response_from_callback(
                UInt64.max, 4096,
                { context, _, buffer, size in
                    let stream = Unmanaged<HTTPStream>.fromOpaque(context!).takeUnretainedValue()
                    // MHD_CONTENT_READER_END_OF_STREAM once closed, or once an ending stream
                    // has written all; a stopping server lets no stream sleep, since
                    // MHD_stop_daemon aborts while a connection is suspended.
                    guard !stream.isClosed else { return -1 }
                    guard !stream.pending.isEmpty else {
                        if stream.isEnding || stream.server?.stopping == true { return -1 }
                        stream.suspended = stream.connection
                        MHD_suspend_connection(stream.connection)
                        return 0
                    }
                    let count = min(size, stream.pending.count)
                    stream.pending.withUnsafeBytes {
                        buffer!.update(from: $0.baseAddress!.assumingMemoryBound(to: CChar.self), count: count)
                    }
                    stream.pending.removeFirst(count)
                    return count
                }, context,
                { context in
                    // The client went, or the daemon stopped: the stream is done.
                    let stream = Unmanaged<HTTPStream>.fromOpaque(context!).takeRetainedValue()
                    stream.isClosed = true
                    stream.server = nil
                })
        else {
            Unmanaged<HTTPStream>.fromOpaque(context).release()
            return MHD_Result.NO
        }
        defer { MHD_destroy_response(response) }
        Self.addHeaders(of: answer, to: response)
        return MHD_queue_response(connection, UInt32(answer.status), response)
    }

    /// `answer`'s headers on libmicrohttpd's `response`, whole or streamed: its type, no caching.
    private static func addHeaders(of answer: HTTPResponse, to response: OpaquePointer) {
        _ = MHD_add_response_header(response, "Content-Type", answer.contentType)
        _ = MHD_add_response_header(response, "Cache-Control", "no-store")
        for (name, value) in answer.headers { _ = MHD_add_response_header(response, name, value) }
    }

    /// The most of a request body kept: control commands are a few bytes.
    static let maximumBody = 64 * 1024
}

/// The daemon's epoll descriptor, as the loop sees it; its timer, for `MHD_get_timeout`.
private final class DaemonSource: EventSource, TimerTarget {
    unowned let server: HTTPDaemon
    let descriptor: Int32
    var registration: EventLoop.Registration?

    init(server: HTTPDaemon, descriptor: Int32) {
        self.server = server
        self.descriptor = descriptor
    }

    var wantsWrite: Bool { false }
    func readable(hungUp: Bool) { server.run() }
    func housekeeping(now: UInt64) { server.run() }
    func registrationFailed(_ error: SystemError) {}
    func timerFired(_ timer: Timer, now: UInt64) { server.run() }
}

/// The rest of a response that goes on (Server-Sent Events): `send` hands it bytes on the
/// server's loop, and the connection wakes to write them. Bounded: a client that reads nothing
/// loses the oldest bytes past `limit`, not the server its memory.
package final class HTTPStream {
    fileprivate weak var server: HTTPDaemon?
    fileprivate var connection: OpaquePointer?
    fileprivate var suspended: OpaquePointer?
    fileprivate var pending: [UInt8] = []
    /// The client went away (or the server stopped): nothing more will be sent.
    package fileprivate(set) var isClosed = false
    /// The response ends once what is queued is written (`end()`).
    fileprivate var isEnding = false
    package static let limit = 256 * 1024

    package init() {}

    /// Sends `bytes` after what is queued; a client that has let `limit` bytes pile up unread
    /// is let go. On the server's loop only.
    package func send(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        pending += bytes
        if pending.count > Self.limit { isClosed = true }
        server?.wake(self)
    }

    /// Sends nothing more: the response ends once what is queued is written, and the client
    /// sees the stream end. On the server's loop only.
    package func end() {
        guard !isClosed else { return }
        isEnding = true
        server?.wake(self)
    }
}
