/// A topic name, encoded once as the NUL-terminated UTF-8 that a C client takes: a device
/// publishes on one topic every tick, so the encoding is not redone per message.
package struct Topic: Sendable, Hashable, CustomStringConvertible {
    package let name: String
    /// `name`'s UTF-8 and a terminating NUL.
    package let cString: ContiguousArray<CChar>

    package init(_ name: String) {
        self.name = name
        cString = name.utf8CString
    }

    package var description: String { name }
}
