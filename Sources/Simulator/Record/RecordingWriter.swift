import Glibc
import Scenario

/// The recording's file, written a line at a time through a buffer: the recorder flushes it at
/// least once a second and at the end, so a kill loses at most the last second. Confined to the
/// recorder's loop.
final class RecordingWriter {
    let path: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// A buffer this full is written at once, whatever the time.
    private static let limit = 256 * 1024

    /// Makes the file, or empties the one there. Throws a sentence naming it.
    init(path: String) throws(RecordingWriteError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RecordingWriteError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        buffer.reserveCapacity(Self.limit)
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// `text` as it is (the header: its own line breaks).
    func append(text: String) throws(RecordingWriteError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.limit { try flush() }
    }

    /// `message` as its line.
    func append(_ message: RecordedMessage) throws(RecordingWriteError) {
        buffer.append(contentsOf: message.jsonLine.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.limit { try flush() }
    }

    /// Hands what is buffered to the file.
    func flush() throws(RecordingWriteError) {
        guard !buffer.isEmpty, descriptor >= 0 else { return }
        var written = 0
        while written < buffer.count {
            let count = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw RecordingWriteError("cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            written += count
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, syncs and closes: the last word.
    func close() throws(RecordingWriteError) {
        guard descriptor >= 0 else { return }
        defer { descriptor = -1 }
        do {
            try flush()
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        var failure: String?
        if fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        // A full disk may only show at close (NFS, quota).
        if Glibc.close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let failure { throw RecordingWriteError("cannot write '\(path)': \(failure)") }
    }

}

/// Why the recording could not be written, as a sentence naming the file.
package struct RecordingWriteError: Error, Sendable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
