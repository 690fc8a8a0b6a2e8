#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file read to its end: a pipe, a FIFO or `/dev/stdin` (`--password-file <(pass show mqtt)`)
/// as well as a regular file, which Foundation's reader, going by the file's size, does not read.
package enum WholeFile {
    /// Why a file could not be read, in words: `no such file or directory`.
    package struct ReadError: Error {
        package var reason: String
    }

    /// The bytes of the file at `path`; more than `limit` is an error, so that a device that
    /// never ends (`/dev/zero`) ends the read.
    package static func bytes(at path: String, limit: Int = .max) throws(ReadError) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw ReadError(reason: String(cString: strerror(errno)).lowercased())
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count > 0 { bytes.append(contentsOf: chunk[0..<count]) }
            if bytes.count > limit { throw ReadError(reason: "it holds more than \(limit) bytes") }
            if count < chunk.count {
                // A directory opens but does not read.
                if ferror(file) != 0 { throw ReadError(reason: String(cString: strerror(errno)).lowercased()) }
                return bytes
            }
        }
    }
}
