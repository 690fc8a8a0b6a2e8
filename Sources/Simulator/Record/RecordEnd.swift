/// Why a recording ended.
package enum RecordEnd: Sendable, Equatable {
    /// A signal asked for the end.
    case stopped
    case duration
    case messages
    /// No connection was accepted, or no subscription granted, within the connect timeout:
    /// the last reason an attempt failed.
    case noConnection(String)
    /// The broker refused the connection for good (its credentials, its client id), or refused
    /// a subscription: nothing more can be recorded.
    case refused(String)
    /// The recording could not be written.
    case writeFailed(String)

    /// The end asked for, rather than a failure.
    package var isClean: Bool {
        switch self {
        case .stopped, .duration, .messages: true
        case .noConnection, .refused, .writeFailed: false
        }
    }

    /// In a few words, for the summary: "stopped by a signal", "after --messages 100".
    package var words: String {
        switch self {
        case .stopped: "stopped by a signal"
        case .duration: "at the end of --duration"
        case .messages: "at --messages"
        case .noConnection(let reason), .refused(let reason), .writeFailed(let reason): reason
        }
    }
}
