import COpenSSL
import Glibc
import MQTT
import Reactor

/// One `SSL_CTX` per set of TLS settings and broker host for the whole process, made once and
/// shared by every connection with them, libmosquitto's (`MOSQ_OPT_SSL_CTX`) and the WebSocket
/// bridge's: files are read once, not at every connection, and every handshake is verified the
/// same way, by OpenSSL with `CertificateVerification` watching, which names what it refuses.
/// OpenSSL's contexts may be shared by threads once set up.
///
/// A fleet whose devices each have their own certificate has a context per device: each costs
/// ~20 KB and ~1 ms because the trust store is shared (`TrustStores`), against ~810 KB and
/// ~27 ms with a store of its own (1,000 contexts, README's figures). They are made outside the
/// lock, ahead of the ramp with `prepare`, and given back with `release(allBut:)` at a reload.
package enum TLSContexts {
    struct Key: Hashable {
        let settings: TLSSettings
        let host: String
        /// Each file's inode, size and change time: a file replaced at its path (a renewed
        /// certificate, before a reload) makes a context anew, not the old one's.
        let files: [[Int]]

        init(_ settings: TLSSettings, host: String) {
            self.settings = settings
            self.host = host
            files = [settings.ca, settings.certificate, settings.key].map(TLSContexts.stamp(of:))
        }

        /// Its files are still as they were when it was made.
        var isCurrent: Bool { Key(settings, host: host) == self }
    }

    /// `stat(2)` of a file; one that cannot be read is empty here, and its context fails to be
    /// made.
    static func stamp(of path: String?) -> [Int] {
        var status = stat()
        guard let path, stat(path, &status) == 0 else { return [] }
        return [Int(status.st_ino), Int(status.st_size), status.st_ctim.tv_sec, status.st_ctim.tv_nsec]
    }

    /// The cache's own reference to each context (`SSL_CTX *`, unchanged after it is made).
    private static let contexts = Locked<[Key: UnsafeSendable]>([:])

    struct UnsafeSendable: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// A reference of the caller's own to the context for `settings`, whose verification checks
    /// that the broker's certificate is for `host` (a name or an address), unless `insecure`;
    /// made now if it is not yet. Hand it to what keeps it (`SSL_new`, `MOSQ_OPT_SSL_CTX`, both
    /// take their own reference) before it goes out of scope: the cache may let its own go at a
    /// reload meanwhile (`release(allBut:)`).
    package static func context(for settings: TLSSettings, host: String) throws(TransportError) -> TLSContext {
        let key = Key(settings, host: host)
        if let cached = contexts.withLock({ $0[key].map(referenced) }) { return TLSContext(owning: cached) }
        // Made outside the lock: it reads files, and a loop thread waiting on another's ~1 ms
        // (~27 ms with the system's store) is a loop that stops.
        let made = try make(key).get()
        let kept = contexts.withLock { contexts in
            if let first = contexts[key] { return referenced(first) }
            contexts[key] = UnsafeSendable(pointer: made)
            return referenced(UnsafeSendable(pointer: made))
        }
        // Another thread made it meanwhile: its context is the one shared, ours goes.
        if kept != made { SSL_CTX_free(made) }
        return TLSContext(owning: kept)
    }

    /// `SSL_CTX_up_ref`: a reference for the caller, taken under the lock so that the cache's
    /// cannot go first.
    private static func referenced(_ entry: UnsafeSendable) -> OpaquePointer {
        _ = SSL_CTX_up_ref(entry.pointer)
        return entry.pointer
    }

    /// Lets go of the cache's reference (`SSL_CTX_free`) to every context whose settings are not
    /// in `inUse`, or whose files were replaced since it was made, and of the trust stores no
    /// kept context uses; returns how many contexts it let go. A connection keeps the context
    /// it has: libmosquitto and the WebSocket bridge's `SSL` hold references of their own, so
    /// a context is freed with its last connection. For a reload: with a certificate per
    /// device, each context kept for a plan gone would be ~20 KB per device at every reload.
    @discardableResult
    package static func release(allBut inUse: Set<TLSSettings>) -> Int {
        let released = contexts.withLock { contexts in
            let gone = contexts.filter { key, _ in !inUse.contains(key.settings) || !key.isCurrent }
            for key in gone.keys { contexts[key] = nil }
            return (Array(gone.values), Set(contexts.keys.map { TrustStores.Key($0.settings) }))
        }
        for entry in released.0 { SSL_CTX_free(entry.pointer) }
        TrustStores.release(allBut: released.1)
        return released.0.count
    }

    /// How many contexts the cache holds.
    package static var count: Int { contexts.withLock { $0.count } }

    /// Whether the context for `settings` and `host` is made, with its files as they are.
    package static func isMade(_ settings: TLSSettings, host: String) -> Bool {
        let key = Key(settings, host: host)
        return contexts.withLock { $0[key] != nil }
    }

    /// OpenSSL's latest error in words, or "".
    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension TLSContexts {
    /// Lets go of a reference another holder took to `context` (`SSL_CTX_free`): libmosquitto's,
    /// when a client is given another context (`MOSQ_OPT_SSL_CTX` takes a reference to the new
    /// one and never frees the old one's).
    package static func releaseReference(to context: OpaquePointer) {
        SSL_CTX_free(context)
    }
}

/// A reference to an `SSL_CTX` of `TLSContexts`, the holder's own: freed (`SSL_CTX_free`) when
/// it goes, once whatever needed it has taken its own.
package struct TLSContext: ~Copyable {
    /// `SSL_CTX *`.
    package let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_CTX_free(pointer) }
}
