import COpenSSL
import Glibc
import MQTT
import Reactor

/// The certificates a context trusts, one `X509_STORE` per source for the whole process, shared
/// by every context that trusts it (`SSL_CTX_set1_cert_store`): the system's store is ~790 KB
/// and ~26 ms to load, once per context before (1,000 contexts: 812 KB and 27.5 ms each with
/// their own, 20 KB and 0.9 ms with one shared; research note of issue 27, §7).
enum TrustStores {
    /// A CA file as it is now (its `stat` stamp: a renewed CA makes a store anew), or the
    /// system's trusted certificates.
    enum Key: Hashable {
        case file(String, stamp: [Int])
        case system

        init(_ settings: TLSSettings) {
            self = settings.ca.map { .file($0, stamp: TLSContexts.stamp(of: $0)) } ?? .system
        }
    }

    /// The stores' own references (`X509_STORE *`).
    private static let stores = Locked<[Key: TLSContexts.UnsafeSendable]>([:])

    /// A reference of the caller's own (`X509_STORE_free` it) to the store `settings` trust,
    /// loaded now if it is not yet.
    static func store(for settings: TLSSettings) -> Swift.Result<OpaquePointer, TransportError> {
        let key = Key(settings)
        if let cached = stores.withLock({ $0[key].map(referenced) }) { return .success(cached) }
        // Loaded outside the lock, as contexts are made (see `TLSContexts.context`).
        let loaded: OpaquePointer
        switch load(key) {
        case .success(let store): loaded = store
        case .failure(let error): return .failure(error)
        }
        let kept = stores.withLock { stores in
            if let first = stores[key] { return referenced(first) }
            stores[key] = TLSContexts.UnsafeSendable(pointer: loaded)
            return referenced(TLSContexts.UnsafeSendable(pointer: loaded))
        }
        if kept != loaded { X509_STORE_free(loaded) }
        return .success(kept)
    }

    /// `X509_STORE_up_ref`, under the lock.
    private static func referenced(_ entry: TLSContexts.UnsafeSendable) -> OpaquePointer {
        _ = X509_STORE_up_ref(entry.pointer)
        return entry.pointer
    }

    /// `X509_STORE_new`, then `X509_STORE_load_file` (a CA file) or `X509_STORE_set_default_paths`
    /// (the system's: `SSL_CERT_FILE` and `SSL_CERT_DIR` as OpenSSL reads them).
    private static func load(_ key: Key) -> Swift.Result<OpaquePointer, TransportError> {
        ERR_clear_error()
        guard let store = X509_STORE_new() else { return .failure(TransportError(TLSContexts.lastError())) }
        let loaded: Bool
        let what: String
        switch key {
        case .file(let path, _):
            loaded = X509_STORE_load_file(store, path) == 1
            what = "cannot read the CA file '\(path)'"
        case .system:
            loaded = X509_STORE_set_default_paths(store) == 1
            what = "cannot read the system's trusted certificates"
        }
        guard loaded else {
            let detail = TLSContexts.lastError()
            X509_STORE_free(store)
            return .failure(TransportError(what + (detail.isEmpty ? "" : ": " + detail)))
        }
        return .success(store)
    }

    /// Lets go of the stores' own references but those of `inUse` (`X509_STORE_free`); a
    /// context that has one keeps its own.
    static func release(allBut inUse: Set<Key>) {
        let gone = stores.withLock { stores in
            let gone = stores.filter { key, _ in !inUse.contains(key) }
            for key in gone.keys { stores[key] = nil }
            return Array(gone.values)
        }
        for entry in gone { X509_STORE_free(entry.pointer) }
    }
}
