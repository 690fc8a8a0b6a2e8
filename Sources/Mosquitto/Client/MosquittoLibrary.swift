import CMosquitto
import Glibc

/// libmosquitto's process-wide set-up. `mosquitto_lib_init` is not thread-safe; a Swift global
/// is initialised exactly once, atomically, which makes it so.
package enum MosquittoLibrary {
    private static let initialized: Bool = {
        mosquitto_lib_init()
        // A write to a socket the broker has closed must fail with EPIPE, reported as a lost
        // connection, not kill the process. libmosquitto 2.0's mosquitto_new ignored SIGPIPE for
        // the whole process; 2.1's does not, and a test run built against it died of it.
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    /// Calls `mosquitto_lib_init` the first time only.
    package static func initialize() {
        _ = initialized
    }

    /// The linked library's version, e.g. "2.0.11": `mosquitto_lib_version`.
    package static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
