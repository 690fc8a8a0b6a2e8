/// A device group's script (`script: FILE.lua`): its path, resolved from the scenario's folder,
/// its text as read when the scenario loaded (checked then: it compiles and defines a hook), and
/// where the scenario names it.
package struct DeviceScript: Sendable, Equatable {
    package var path: String
    package var text: [UInt8]
    package var location: SourceLocation
    /// The hooks it defines, by name (`start`, `tick`, `command`…).
    package var hooks: Set<String>

    package init(path: String, text: [UInt8], location: SourceLocation, hooks: Set<String>) {
        self.path = path
        self.text = text
        self.location = location
        self.hooks = hooks
    }
}
