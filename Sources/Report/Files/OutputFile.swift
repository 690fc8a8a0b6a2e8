import Glibc

/// A file a command writes when it ends (`run --report`, `report merge --output`): checked before
/// the work starts, so that a typo costs a second rather than the whole test, written whole or
/// not at all, and with the system's own words for what went wrong.
public enum OutputFile {
    /// Why `path` cannot take the file, as a sentence ("directory 'nodir' does not exist"), or
    /// `nil` when it can: its directory exists, is a directory and is writable, and `path` is not
    /// a directory nor a file that cannot be written.
    public static func problem(_ path: String) -> String? {
        guard !path.isEmpty else { return "no file name" }
        var info = stat()
        if stat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return "'\(path)' is a directory" }
            guard access(path, W_OK) == 0 else { return "'\(path)' cannot be written: \(reason(errno))" }
            // A device or a pipe is written as it is; a file is replaced from beside it.
            guard info.st_mode & S_IFMT == S_IFREG else { return nil }
            let directory = Self.directory(of: resolved(path))
            guard access(directory, W_OK) == 0 else {
                return "directory '\(directory)' cannot be written (the file is written beside it, then renamed): \(reason(errno))"
            }
            return nil
        }
        let directory = Self.directory(of: path)
        guard stat(directory, &info) == 0 else {
            return errno == ENOENT ? "directory '\(directory)' does not exist" : "directory '\(directory)': \(reason(errno))"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "'\(directory)' is not a directory" }
        guard access(directory, W_OK) == 0 else { return "directory '\(directory)' cannot be written: \(reason(errno))" }
        return nil
    }

    /// Writes `bytes` to `path`, replacing what was there. A regular file (or a new one) is
    /// written to a temporary file beside it and renamed into place, so a reader, or a CI job
    /// that collects it, sees the old file or the whole new one, never half a report, and a
    /// write that fails leaves the old one as it was. A device or a pipe (`/dev/stdout`) is
    /// written as it is. Throws a sentence naming the file and the system's reason.
    public static func write(_ bytes: some Collection<UInt8>, to path: String) throws(OutputFileError) {
        let contents = Array(bytes)
        var info = stat()
        let exists = stat(path, &info) == 0
        guard !exists || info.st_mode & S_IFMT == S_IFREG else {
            try writeInPlace(contents, to: path)
            return
        }
        // Through a symbolic link, the file it names is the one replaced, the link kept.
        let target = exists ? resolved(path) : path
        let (descriptor, temporary) = try temporaryFile(beside: target, for: path)
        // The replaced file's permissions, not the temporary file's.
        if exists { fchmod(descriptor, info.st_mode & 0o7777) }
        var failure: OutputFileError?
        do throws(OutputFileError) {
            try writeAll(contents, to: descriptor, path: path)
        } catch {
            failure = error
        }
        if failure == nil, fsync(descriptor) != 0 { failure = OutputFileError("cannot write '\(path)': \(reason(errno))") }
        // A full disk may only show at close (NFS, quota).
        if close(descriptor) != 0, failure == nil { failure = OutputFileError("cannot write '\(path)': \(reason(errno))") }
        if failure == nil, rename(temporary, target) != 0 {
            failure = OutputFileError("cannot write '\(path)': renaming '\(temporary)' into place: \(reason(errno))")
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// The file `path` names, its symbolic links followed; `path` itself when that fails.
    private static func resolved(_ path: String) -> String {
        guard let pointer = realpath(path, nil) else { return path }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// A new file `.NAME.devsim-XXXXXX` in `target`'s directory (the rename must not cross file
    /// systems), hidden from a glob such as `*.xml`.
    private static func temporaryFile(beside target: String, for path: String) throws(OutputFileError) -> (Int32, String) {
        let name = target.split(separator: "/").last.map(String.init) ?? target
        let prefix = directory(of: target) + "/." + name + ".devsim-"
        for _ in 0..<8 {
            let temporary = prefix + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return (descriptor, temporary) }
            guard errno == EEXIST else {
                throw OutputFileError("cannot write '\(path)': a temporary file beside it ('\(temporary)'): \(reason(errno))")
            }
        }
        throw OutputFileError("cannot write '\(path)': no free name for a temporary file beside it ('\(prefix)…')")
    }

    /// `open`, `write`, `close`, for a file that cannot be replaced: a device, a pipe.
    private static func writeInPlace(_ contents: [UInt8], to path: String) throws(OutputFileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OutputFileError("cannot write '\(path)': \(reason(errno))") }
        do throws(OutputFileError) {
            try writeAll(contents, to: descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        // A full disk may only show at close (NFS, quota).
        guard close(descriptor) == 0 else { throw OutputFileError("cannot write '\(path)': \(reason(errno))") }
    }

    private static func writeAll(_ contents: [UInt8], to descriptor: Int32, path: String) throws(OutputFileError) {
        var written = 0
        while written < contents.count {
            let n = contents.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, contents.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw OutputFileError("cannot write '\(path)': \(reason(errno))") }
            written += n
        }
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
