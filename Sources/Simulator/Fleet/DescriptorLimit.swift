import Glibc

/// The open-file limit a fleet needs: libmosquitto uses three descriptors per connection (the
/// socket and a socket pair to wake its own loop; one, from 2.1 on, which lets devsim go without
/// the pair), and each event loop two more.
package enum DescriptorLimit {
    package struct Shortage: Error, CustomStringConvertible {
        package let needed: Int
        package let limit: Int
        package let perConnection: Int

        package var description: String {
            "the fleet needs about \(needed) open files (\(perConnection) per connection) but the limit is \(limit); "
                + "raise it (ulimit -n \(needed), or podman/docker --ulimit nofile=\(needed):\(needed)) or run fewer connections"
        }
    }

    /// Descriptors for `connections` connections of `perConnection` each on `loops` loops, with
    /// room for the rest.
    package static func needed(connections: Int, perConnection: Int, loops: Int) -> Int {
        connections * perConnection + loops * 2 + 64
    }

    /// Raises the soft limit to the hard limit, and the hard limit too when `needed` is above it
    /// and the process may (root). Returns the limit now in force; throws when it is too low.
    @discardableResult
    package static func raise(toFit needed: Int, perConnection: Int) throws(Shortage) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return needed }
        let wanted = rlim_t(needed)
        if limit.rlim_max < wanted {
            var higher = rlimit(rlim_cur: wanted, rlim_max: wanted)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &higher) == 0 { return needed }
        }
        if limit.rlim_cur < limit.rlim_max {
            var raised = rlimit(rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit.rlim_cur = limit.rlim_max }
        }
        let inForce = limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
        guard inForce >= needed else { throw Shortage(needed: needed, limit: inForce, perConnection: perConnection) }
        return inForce
    }
}
