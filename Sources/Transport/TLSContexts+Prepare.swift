import MQTT

extension TLSContexts {
    /// Makes now, before the connections need them, the contexts of `settings` for `host` that
    /// are not made yet; returns each settings value that failed, with why. For the start of a
    /// run (and a reload) before the ramp: with a certificate per device, 1,000 contexts take
    /// ~0.9 s, which the event loops would otherwise spend while connecting.
    ///
    /// On the calling thread: two worker threads gained nothing measurable on this 2-core machine
    /// (1,000 contexts in 0.87–1.22 s against one thread's 0.91–0.93 s, three runs each of
    /// `TLSContextBenchmark`, under other builds' load), so none are started.
    package static func prepare(_ settings: some Sequence<TLSSettings>, host: String) -> [TLSSettings: TransportError] {
        var failures: [TLSSettings: TransportError] = [:]
        var seen = Set<TLSSettings>()
        for each in settings where seen.insert(each).inserted {
            do throws(TransportError) {
                _ = try context(for: each, host: host)
            } catch {
                failures[each] = error
            }
        }
        return failures
    }
}
