/// A topic name, encoded once as the NUL-terminated UTF-8 that a C client takes: a device
/// publishes on one topic every tick, so the encoding is not redone per message.
public struct Topic: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    /// `name`'s UTF-8 and a terminating NUL.
    public let cString: ContiguousArray<CChar>

    public init(_ name: String) {
        self.name = name
        cString = name.utf8CString
    }

    public var description: String { name }
}
