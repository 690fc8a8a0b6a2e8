import CMosquitto
import Glibc
import MQTT
import Reactor
import Transport

/// What a `Client` reports. Called on the client's event-loop thread from inside libmosquitto, so
/// an implementation may publish (the packet is queued) but must not connect, reconnect or
/// destroy the client there.
package protocol ClientDelegate: AnyObject {
    /// The broker answered CONNECT; what it says the connection must keep to is in
    /// `client.brokerLimits` from here.
    func client(_ client: Client, didReceiveConnack code: ConnackCode)
    /// The connection is gone; `error` is `nil` when we asked for it with `disconnect()`.
    func client(_ client: Client, didDisconnect error: MosquittoError?)
    /// QoS 0: the message was written to the socket. QoS 1: PUBACK. QoS 2: PUBCOMP, or a PUBREC
    /// that refuses it. An MQTT 5 broker's `reasonCode` of 0x80 or more refuses the message; an
    /// MQTT 3 acknowledgement has none (0).
    func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode)
    /// Everything libmosquitto had queued for a full socket is written: there is room again.
    func clientCanWrite(_ client: Client)
    /// A PUBLISH arrived on a subscription. `message` points into libmosquitto's buffers and is
    /// valid only during the call: copy what must outlive it.
    func client(_ client: Client, didReceive message: ReceivedMessage)
    /// The broker answered SUBSCRIBE `messageID` with these granted QoS levels, one per topic
    /// filter in the order sent (`Subscribe.filters`); 0x80 and up refuse the filter, for the
    /// reason an MQTT 5 code gives.
    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32])
}

/// Publishers need not hear of room to write, messages or subscriptions: each defaults to doing
/// nothing.
extension ClientDelegate {
    package func clientCanWrite(_ client: Client) {}
    package func client(_ client: Client, didReceive message: ReceivedMessage) {}
    package func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {}
}

/// One MQTT connection, a `struct mosquitto` underneath.
///
/// A client is confined to one `EventLoop`, whose `EventSource` it is: after `attach(to:)`
/// (which its loop checks, `EventLoop.register`), every call on it is made on that loop's thread.
/// It is not `Sendable`, so no other thread reaches it but through a `LoopBound`, which checks
/// where it is opened; that is why it has no locks, and its calls no checks of their own. It
/// keeps its registration up to date itself: the socket libmosquitto replaces at each attempt
/// and closes at each loss, and its wish to write after each call.
public final class Client {
    let handle: OpaquePointer
    package internal(set) var options: ClientOptions
    /// Not retained: the delegate owns the client (a retain cycle otherwise) and must outlive
    /// it. `unowned(unsafe)` because a weak load on every callback showed in the publish path.
    package unowned(unsafe) var delegate: ClientDelegate?

    /// The loop that drives it, once attached, and its place there.
    unowned(unsafe) var loop: EventLoop?
    var registration: EventLoop.Registration?
    /// When the broker was last heard from (monotonic nanoseconds): the last time the socket
    /// had something to read, or the start of the current attempt.
    package internal(set) var lastHeard: UInt64 = 0
    /// The error the next `didDisconnect` reports instead of libmosquitto's, set by `abandon`.
    var abandonedBecause: MosquittoError?
    /// From each attempt until its CONNACK: the time a TLS handshake is under way.
    package private(set) var awaitsConnack = false
    /// `didDisconnect` calls so far, libmosquitto's and ours: tells a failure it reported from
    /// one it returned without reporting.
    var disconnectsReported = 0
    /// libmosquitto gave up on the attempt but keeps its socket open (see `loopRead`): the loop
    /// stops watching it, and the next attempt closes it.
    var isDetached = false
    /// `errno` as `mosquitto_connect_async` left it: where a TCP connect refused at once shows,
    /// when libmosquitto goes on to a TLS handshake on the dead socket regardless.
    var connectErrno: Int32 = 0
    /// What the broker's CONNACKs said the connection must keep to, as libmosquitto keeps it:
    /// each CONNACK's properties over the last's, but for Server Keep Alive and Retain Available,
    /// which each attempt resets (`mosquitto__connect_init`).
    package private(set) var brokerLimits = BrokerLimits()
    /// `disconnect()` was called on the current connection: a close without a reason is ours.
    var disconnectRequested = false
    /// The current attempt's TCP connection was made (the socket has or had a peer): a close
    /// before the CONNACK is then the broker's answer to our CONNECT, not a broker out of reach.
    package var reachedBroker: Bool { hadPeer || (awaitsConnack && isTCPConnected) }
    /// The socket had a peer at an event of the current attempt: the event of a close comes
    /// while the socket is still open (`noteWhetherReachedBroker`), and it is gone after.
    private var hadPeer = false
    /// Why the attempt's TLS handshake refused the broker's certificate, or the broker ours (its
    /// alert), in words with the way out (`CertificateVerification`): what its `MOSQ_ERR_TLS`
    /// ("A TLS error occurred.") and "Protocol error" leave out.
    package internal(set) var certificateRefusal: String?
    /// This connection's Topic Aliases (`Client+Properties`), anew at each CONNACK.
    var topicAliases = TopicAliases()
    /// The TLS context libmosquitto holds a reference to (`applyTLS`), which it does not free
    /// when given another: a failover's (`move(to:)`).
    var libraryContext: OpaquePointer?
    /// When the current attempt's TCP connection and TLS handshake were seen done, in
    /// monotonic nanoseconds (`ConnectTimings`); `nil` until then.
    package private(set) var tcpConnectedAt: UInt64?
    package internal(set) var tlsFinishedAt: UInt64?
    /// The CONNECT properties every attempt sends (`options.connectProperties`), made once.
    private var connectPropertyList: ConnectPropertyList?

    /// Creates the connection and applies `options`; nothing is sent until `connect()`.
    /// Calls `mosquitto_new`, then the `mosquitto_*_set` functions the options need; an option
    /// the library refuses is named in the error. (`deinit` destroys the handle then too.)
    package init(options: ClientOptions) throws(ClientSetupError) {
        MosquittoLibrary.initialize()
        guard let handle = Client.makeHandle(options) else {
            throw ClientSetupError(option: "client", error: MosquittoError(rawValue: MosquittoError.noMemory.rawValue, systemErrno: errno))
        }
        self.handle = handle
        self.options = options
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        Client.installCallbacks(handle, reportsPublishes: options.reportsPublishes)
        try apply(options)
        connectPropertyList = try options.connectProperties.map { (properties) throws(ClientSetupError) in
            try ConnectPropertyList(properties)
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    private static func makeHandle(_ options: ClientOptions) -> OpaquePointer? {
        if let id = options.clientID {
            return mosquitto_new(id, options.cleanSession, nil)
        }
        return mosquitto_new(nil, options.cleanSession, nil)
    }

    private func apply(_ options: ClientOptions) throws(ClientSetupError) {
        func setting(_ option: String, _ rc: Int32) throws(ClientSetupError) {
            do { try check(rc) } catch { throw ClientSetupError(option: option, error: error) }
        }
        try setting("protocol", mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, options.protocolVersion.rawValue))
        // TCP_NODELAY stays off, as in mosquitto_pub: at device rates every message leaves at
        // once anyway, and at load-test rates one segment per message doubled the kernel's work.
        // libmosquitto holds back QoS 1/2 messages beyond its own window (20 by default) while
        // devsim would count them in flight: make the two windows one.
        try setting("max in flight", mosquitto_int_option(handle, MOSQ_OPT_SEND_MAXIMUM, options.maxInFlight))
        try setting("socketpair", devsim_disable_socketpair(handle))
        try setting("receive maximum", mosquitto_int_option(handle, MOSQ_OPT_RECEIVE_MAXIMUM, options.receiveMaximum))
        if options.username != nil || options.password != nil {
            try setting("username/password", mosquitto_username_pw_set(handle, options.username, options.password))
        }
        if let will = options.will {
            try setting(
                "will",
                will.payload.withUnsafeBytes { bytes in
                    mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos.rawValue, will.retain)
                })
        }
        if let tls = options.libraryTLS {
            try applyTLS(tls, setting)
        }
    }

    /// TLS through a context of devsim's (`TLSContexts`, shared by every client with the same
    /// settings and host): `MOSQ_OPT_SSL_CTX`, with libmosquitto's own set-up of it off
    /// (`MOSQ_OPT_SSL_CTX_WITH_DEFAULTS`), so that the verification that runs is the one that
    /// names what it refuses (see `certificateRefusal`). The CA given, or the system's trusted
    /// certificates (`SSL_CERT_FILE`, `SSL_CERT_DIR`) when none is; `insecure` verifies nothing.
    func applyTLS(_ tls: TLSSettings, _ setting: (String, Int32) throws(ClientSetupError) -> Void) throws(ClientSetupError) {
        let context: TLSContext
        do {
            context = try TLSContexts.context(for: tls, host: options.host)
        } catch {
            throw ClientSetupError(option: "tls", error: .tls, reason: error.message)
        }
        try setting("tls", mosquitto_int_option(handle, MOSQ_OPT_SSL_CTX_WITH_DEFAULTS, 0))
        // libmosquitto takes a reference of its own (`SSL_CTX_up_ref`), which `mosquitto_destroy`
        // frees, and keeps the one to the context it had: released here. Ours goes with `context`.
        try setting("tls", mosquitto_void_option(handle, MOSQ_OPT_SSL_CTX, UnsafeMutableRawPointer(context.pointer)))
        if let replaced = libraryContext { TLSContexts.releaseReference(to: replaced) }
        libraryContext = context.pointer
    }

    /// The protocol the broker chose by ALPN in this connection's TLS handshake
    /// (`SSL_get0_alpn_selected` on `mosquitto_ssl_get`'s `SSL`), or `nil`: none chosen, none
    /// offered, or no TLS. After the CONNACK.
    package var negotiatedALPN: String? {
        return mosquitto_ssl_get(handle).flatMap(ALPN.selected(on:))
    }

    /// Starts connecting without waiting for the broker: `mosquitto_connect_async`
    /// (`mosquitto_connect_bind_async` from `options.bindAddress`), also for every
    /// attempt after the first (it closes the previous socket). The host name is resolved here,
    /// blocking, which is quick for addresses and local names. With `localPath`, to a Unix
    /// socket there instead (port 0): a bridge's, which carries the bytes on. With CONNECT
    /// properties, `mosquitto_connect_bind_v5` there, the one call that sends them: its connect
    /// blocks, which a Unix socket that listens does not.
    package func connect(through localPath: String? = nil) throws(MosquittoError) {
        startAttempt()
        errno = 0
        let keepalive = Int32(options.keepalive.components.seconds)
        // A TCP connect to loopback may complete at once, and libmosquitto begins the TLS
        // handshake within the call.
        let rc = handshakeStep {
            localPath.map { path in
                if let list = connectPropertyList { return mosquitto_connect_bind_v5(handle, path, 0, keepalive, nil, list.pointer) }
                return mosquitto_connect_async(handle, path, 0, keepalive)
            }
                ?? mosquitto_connect_bind_async(handle, options.host, options.port, keepalive, options.bindAddress)
        }
        connectErrno = errno
        // A loopback connect may be made within the call: its time is then that short. Its
        // `getpeername` must not change the `errno` the call left.
        noteWhetherReachedBroker()
        errno = connectErrno
        try check(rc)
    }

    /// Each attempt closes the socket of the one before, detached or not.
    private func startAttempt() {
        socketClosed()
        isDetached = false
        awaitsConnack = true
        lastHeard = MonotonicClock.now()
        abandonedBecause = nil
        disconnectRequested = false
        hadPeer = false
        brokerLimits.serverKeepAlive = nil
        brokerLimits.retainAvailable = true
        // Absent from a CONNACK, none (MQTT 5, 3.2.2.3.8): an alias the last one allowed ends this.
        brokerLimits.topicAliasMaximum = 0
        certificateRefusal = nil
        tcpConnectedAt = nil
        tlsFinishedAt = nil
    }

    /// The CONNACK arrived (accepted or not): any TLS handshake is over.
    func connackArrived(limits: BrokerLimits) {
        awaitsConnack = false
        brokerLimits = limits
        topicAliases.restart(maximum: limits.topicAliasMaximum)
    }

    /// While a CONNACK is awaited, whether the socket has reached the broker: asked at each
    /// event on the socket, the last moment before libmosquitto may close it.
    func noteWhetherReachedBroker() {
        guard awaitsConnack, !hadPeer else { return }
        hadPeer = isTCPConnected
        if hadPeer { tcpConnectedAt = MonotonicClock.now() }
    }

    /// What `on_disconnect`'s `rc` means: `nil` for the close we asked for; a broker's DISCONNECT
    /// reason, which libmosquitto hands over in place of its own codes (0x80 and up, or 0 when
    /// we asked for nothing); otherwise libmosquitto's error.
    func disconnectError(_ rc: Int32) -> MosquittoError? {
        if rc == 0 {
            return disconnectRequested ? nil : .disconnected(by: .success)
        }
        if options.protocolVersion == .v5, rc >= 0x80, rc <= 0xFF {
            return .disconnected(by: ReasonCode(rawValue: UInt8(rc)))
        }
        return MosquittoError(rawValue: rc, systemErrno: errno)
    }

    /// Gives up on a connection without waiting for TCP to notice, as when the broker has gone
    /// silent: `shutdown(2)` on the socket, then `mosquitto_loop_read`, which reads end-of-file,
    /// closes the socket and reports `didDisconnect(error)`. Nothing is sent: the network that
    /// swallowed the broker's replies would swallow a DISCONNECT too.
    package func abandon(reporting error: MosquittoError) {
        let socket = self.socket
        guard socket >= 0, !isDetached else { return }
        abandonedBecause = error
        _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
        readToTheEnd(of: socket, failure: error)
    }

    /// Speaks `version` from the next attempt on: `MOSQ_OPT_PROTOCOL_VERSION`.
    package func use(_ version: ProtocolVersion) throws(ClientSetupError) {
        do { try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version.rawValue)) } catch {
            throw ClientSetupError(option: "protocol", error: error)
        }
        options.protocolVersion = version
    }

    /// Sends `password` (with the same user name) from the next CONNECT on:
    /// `mosquitto_username_pw_set`, which libmosquitto reads at every CONNECT. Kept in the
    /// options too, which `discardQueuedMessages` applies again. An Azure IoT Hub SAS token,
    /// made anew before each attempt.
    package func setPassword(_ password: String) throws(ClientSetupError) {
        do { try check(mosquitto_username_pw_set(handle, options.username, password)) } catch {
            throw ClientSetupError(option: "username/password", error: error)
        }
        options.password = password
    }

    /// Forgets every message libmosquitto holds (QoS 1/2 awaiting acknowledgement, which it
    /// would resend at the next connect) by making the client anew with the same options:
    /// `mosquitto_reinitialise`, which also closes the socket. Not from inside a callback.
    package func discardQueuedMessages() throws(ClientSetupError) {
        // A client id the broker assigned stays the connection's; the limits go with the rest.
        let id = options.clientID ?? brokerLimits.assignedClientIdentifier
        let rc = mosquitto_reinitialise(handle, id, options.cleanSession, Unmanaged.passUnretained(self).toOpaque())
        // `mosquitto_reinitialise` freed its reference to the TLS context, which `apply` sets again.
        libraryContext = nil
        guard rc == 0 else { throw ClientSetupError(option: "client", error: MosquittoError(rawValue: rc, systemErrno: errno)) }
        brokerLimits = BrokerLimits()
        brokerLimits.assignedClientIdentifier = id == options.clientID ? nil : id
        socketClosed()
        isDetached = false
        Client.installCallbacks(handle, reportsPublishes: options.reportsPublishes)
        logLibraryLines()
        try apply(options)
    }

    /// Sends DISCONNECT: `mosquitto_disconnect_v5`, whose `reason` only MQTT 5 carries (0x04,
    /// Disconnect with Will Message, has the broker publish the will all the same; 3.1.1's
    /// DISCONNECT always discards it). `didDisconnect(nil)` follows once it is written.
    package func disconnect(reason: ReasonCode = .success) throws(MosquittoError) {
        defer { registrationMayChange() }
        disconnectRequested = true
        try check(mosquitto_disconnect_v5(handle, Int32(options.protocolVersion == .v5 ? reason.rawValue : 0), nil))
    }

    /// Hands a message to libmosquitto: `mosquitto_publish`.
    /// Returns the message id that `didPublish` will report, and the error if the call failed.
    /// The id is returned either way: libmosquitto queues a QoS 1/2 message before it tries to
    /// write it, so one whose write failed is still resent after a reconnect. A message over the
    /// broker's Maximum Packet Size fails with `oversizePacket` before it reaches libmosquitto,
    /// whose own check counts a QoS 1/2 packet id as one byte, not two (2.0.11, `actions.c`).
    @inline(__always)
    package func publish(topic: Topic, payload: UnsafeRawBufferPointer, qos: QoS, retain: Bool) -> (
        messageID: Int32, error: MosquittoError?
    ) {
        if brokerLimits.maximumPacketSize != nil, !fits(topic: topic, payload: payload.count, qos: qos) { return (0, .oversizePacket) }
        var messageID: Int32 = 0
        let rc = topic.cString.withUnsafeBufferPointer { name in
            mosquitto_publish(handle, &messageID, name.baseAddress, Int32(payload.count), payload.baseAddress, qos.rawValue, retain)
        }
        // Only a message the socket would not take changes what the loop must watch for.
        if mosquitto_want_write(handle) { registrationMayChange() }
        return (messageID, rc == 0 ? nil : MosquittoError(rawValue: rc, systemErrno: errno))
    }

    /// An MQTT 5 response: `mosquitto_publish_v5` with the request's correlation data, which
    /// the requester matches its answer by.
    package func publish(
        topic: Topic, payload: UnsafeRawBufferPointer, qos: QoS, correlationData: [UInt8]
    ) -> (messageID: Int32, error: MosquittoError?) {
        // The correlation data's property: its identifier, a two-byte length, the data.
        guard fits(topic: topic, payload: payload.count, qos: qos, properties: 3 + correlationData.count) else {
            return (0, .oversizePacket)
        }
        var properties: OpaquePointer?
        defer { mosquitto_property_free_all(&properties) }
        var messageID: Int32 = 0
        var rc = correlationData.withUnsafeBytes {
            mosquitto_property_add_binary(
                &properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), $0.baseAddress, UInt16(clamping: $0.count))
        }
        if rc == 0 {
            rc = topic.cString.withUnsafeBufferPointer { name in
                mosquitto_publish_v5(
                    handle, &messageID, name.baseAddress, Int32(payload.count), payload.baseAddress, qos.rawValue, false, properties)
            }
        }
        if mosquitto_want_write(handle) { registrationMayChange() }
        return (messageID, rc == 0 ? nil : MosquittoError(rawValue: rc, systemErrno: errno))
    }

    /// Whether a PUBLISH of `payload` bytes on `topic` goes to the broker (`BrokerLimits`).
    @inline(__always)
    package func fits(topic: Topic, payload: Int, qos: QoS, properties: Int = 0) -> Bool {
        brokerLimits.admits(
            packetOf: PacketSize.publish(
                topic: topic.cString.count - 1, payload: payload, qos: qos, version: options.protocolVersion, properties: properties))
    }

    /// One SUBSCRIBE: its filters, in the order its SUBACK answers them, and the message id that
    /// SUBACK will have, or why it was not sent (`oversizePacket`: a filter over the broker's
    /// Maximum Packet Size alone).
    package struct Subscribe: Sendable, Equatable {
        package let filters: [String]
        package let sent: Result<Int32, MosquittoError>
    }

    /// Subscribes to every filter of `topics`: `mosquitto_subscribe_multiple`, as few SUBSCRIBEs
    /// as the broker's Maximum Packet Size allows, at most `perPacket` filters in each. Returns
    /// every SUBSCRIBE, sent or not: one that fails leaves the others be. MQTT 5 sends `options`
    /// with each filter; MQTT 3 has none to send.
    package func subscribe(
        _ topics: [String], qos: QoS, options subscriptionOptions: SubscriptionOptions = SubscriptionOptions(), perPacket: Int = 100
    ) -> [Subscribe] {
        defer { registrationMayChange() }
        let optionBits = self.options.protocolVersion == .v5 ? subscriptionOptions.bits : 0
        return packets(of: topics, perPacket: perPacket).map { batch in
            guard brokerLimits.admits(packetOf: PacketSize.subscribe(batch, version: options.protocolVersion)) else {
                return Subscribe(filters: batch, sent: .failure(.oversizePacket))
            }
            let copies = batch.map { strdup($0) }
            defer { copies.forEach { free($0) } }
            var messageID: Int32 = 0
            let rc = copies.withUnsafeBufferPointer { pointers in
                pointers.withMemoryRebound(to: UnsafeMutablePointer<CChar>?.self) { rebound in
                    mosquitto_subscribe_multiple(
                        handle, &messageID, Int32(rebound.count), rebound.baseAddress, qos.rawValue, optionBits, nil)
                }
            }
            return Subscribe(
                filters: batch, sent: rc == 0 ? .success(messageID) : .failure(MosquittoError(rawValue: rc, systemErrno: errno)))
        }
    }

    /// `topics` dealt into SUBSCRIBEs in order, each as full as the broker's Maximum Packet Size
    /// and `perPacket` let it be; a filter too large for any packet has one of its own.
    private func packets(of topics: [String], perPacket: Int) -> [[String]] {
        var packets: [[String]] = []
        var current: [String] = []
        var filterBytes = 0
        for topic in topics {
            let bytes = PacketSize.subscription(topic)
            if !current.isEmpty,
                current.count == perPacket
                    || !brokerLimits.admits(
                        packetOf: PacketSize.subscribe(filterBytes: filterBytes + bytes, version: options.protocolVersion))
            {
                packets.append(current)
                current = []
                filterBytes = 0
            }
            current.append(topic)
            filterBytes += bytes
        }
        if !current.isEmpty { packets.append(current) }
        return packets
    }

    /// Whether the TCP connection is up (`getpeername` succeeds): a CONNECT has reached the
    /// broker's socket, whatever it does with it.
    package var isTCPConnected: Bool {
        let socket = self.socket
        guard socket >= 0 else { return false }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) == 0 }
        }
    }

    /// Descriptors each client holds: its socket, and the socketpair libmosquitto wakes its own
    /// loop with unless it can go without. Counted on a client made and destroyed for the
    /// purpose, with the options every client gets: built against libmosquitto 2.1.2, the
    /// pair was still made in `mosquitto_new`, before any option can be set, so 3 it is there too.
    package static let descriptorsPerClient: Int = {
        MosquittoLibrary.initialize()
        let before = openDescriptors()
        guard let probe = mosquitto_new(nil, true, nil) else { return 3 }
        _ = devsim_disable_socketpair(probe)
        let held = openDescriptors() - before
        mosquitto_destroy(probe)
        return min(3, max(1, held + 1))
    }()

    /// Descriptors this process has open: the entries of `/proc/self/fd`.
    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count
    }

    /// The connection's socket, or -1: `mosquitto_socket`.
    package var socket: Int32 { mosquitto_socket(handle) }

    /// Whether libmosquitto has bytes waiting to be written (the socket is full, or it was in a
    /// callback): `mosquitto_want_write`. The back-pressure of a QoS 0 stream, asked before every
    /// publish: public, as `Client` is, so that other modules inline it (see
    /// `PayloadBuffer.withBytes`).
    public var wantsWrite: Bool { mosquitto_want_write(handle) }
}
