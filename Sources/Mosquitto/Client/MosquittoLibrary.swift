import CMosquitto

/// libmosquitto's process-wide set-up. `mosquitto_lib_init` is not thread-safe; a Swift global
/// is initialised exactly once, atomically, which makes it so.
public enum MosquittoLibrary {
    private static let initialized: Bool = {
        mosquitto_lib_init()
        return true
    }()

    /// Calls `mosquitto_lib_init` the first time only.
    public static func initialize() {
        _ = initialized
    }

    /// The linked library's version, e.g. "2.0.11": `mosquitto_lib_version`.
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
