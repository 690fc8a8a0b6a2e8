import COpenSSL
import Glibc
import MQTT
import Reactor

extension TLSContexts {
    /// Makes now, before the connections need them, the contexts of `settings` for `host` that
    /// are not made yet, on `threads` threads; returns each settings value that failed, with why.
    /// For the start of a run (and a reload) before the ramp: with a certificate per device,
    /// 1,000 contexts take ~1 s, which the event loops would otherwise spend while connecting.
    /// The trust stores are loaded first, once each, so that threads do not load one together.
    package static func prepare(
        _ settings: some Sequence<TLSSettings>, host: String, threads: Int = defaultThreads
    ) -> [TLSSettings: TransportError] {
        var seen = Set<TLSSettings>()
        let distinct = settings.filter { seen.insert($0).inserted }
        let failures = Locked<[TLSSettings: TransportError]>([:])
        var trusted = Set<TrustStores.Key>()
        for each in distinct where trusted.insert(TrustStores.Key(each)).inserted {
            if case .success(let store) = TrustStores.store(for: each) { X509_STORE_free(store) }
        }
        let next = Locked(0)
        let work: @Sendable () -> Void = {
            while true {
                let index = next.withLock { next in
                    defer { next += 1 }
                    return next
                }
                guard index < distinct.count else { return }
                do throws(TransportError) {
                    _ = try context(for: distinct[index], host: host)
                } catch {
                    failures.withLock { $0[distinct[index]] = error }
                }
            }
        }
        let helpers = (1..<max(1, min(threads, distinct.count))).compactMap { _ in try? JoinableThread(work) }
        work()
        for helper in helpers { helper.join() }
        return failures.withLock { $0 }
    }

    /// One thread per core, at most 2: <FILLED IN FROM THE BENCHMARK>.
    package static var defaultThreads: Int { max(1, min(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}
