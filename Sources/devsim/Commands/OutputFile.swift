import Glibc

/// A file a command writes when it ends (`run --report`, `report merge --output`): checked before
/// the work starts, so that a typo costs a second rather than the whole test, and written with
/// the system's own words for what went wrong.
enum OutputFile {
    /// Why `path` cannot take the file, as a sentence ("directory 'nodir' does not exist"), or
    /// `nil` when it can: its directory exists, is a directory and is writable, and `path` is not
    /// a directory nor a file that cannot be written.
    static func problem(_ path: String) -> String? {
        guard !path.isEmpty else { return "no file name" }
        var info = stat()
        if stat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return "'\(path)' is a directory" }
            return access(path, W_OK) == 0 ? nil : "'\(path)' cannot be written: \(reason(errno))"
        }
        let directory = Self.directory(of: path)
        guard stat(directory, &info) == 0 else {
            return errno == ENOENT ? "directory '\(directory)' does not exist" : "directory '\(directory)': \(reason(errno))"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "'\(directory)' is not a directory" }
        guard access(directory, W_OK) == 0 else { return "directory '\(directory)' cannot be written: \(reason(errno))" }
        return nil
    }

    /// Writes `bytes` to `path`, replacing what was there: `open`, `write`, `close`. Throws a
    /// sentence naming the file and the system's reason.
    static func write(_ bytes: some Collection<UInt8>, to path: String) throws(RuntimeError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RuntimeError("cannot write '\(path)': \(reason(errno))") }
        let contents = Array(bytes)
        var written = 0
        while written < contents.count {
            let n = contents.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, contents.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = errno
                close(descriptor)
                throw RuntimeError("cannot write '\(path)': \(reason(error))")
            }
            written += n
        }
        // A full disk may only show at close (NFS, quota).
        guard close(descriptor) == 0 else { throw RuntimeError("cannot write '\(path)': \(reason(errno))") }
    }

    /// The directory `path` would be made in: "." for a bare name, "/" for a file at the root.
    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
