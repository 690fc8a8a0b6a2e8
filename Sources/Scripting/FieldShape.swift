/// The shape of a group's `device.fields`: each field's name interned once in the interpreter,
/// and each field's path as positions in that list, so that a call's fields are made and read
/// without a Swift collection or a hashed name between (`ScriptEngine+Fields`).
package struct FieldShape: Sendable {
    /// The registry's reference to the list of names, each once, `fields` the first.
    let names: Int32
    /// Each field's path (`location.lat`: two names), as 1-based positions in `names`.
    let paths: [[Int32]]
    /// How many names the top of the table holds.
    let topCount: Int32
    /// Each field's path as the script reads it, for its messages: `location.lat`.
    package let dotted: [String]

    /// Where `fields`, the device table's key, stands in `names`.
    static let fields: Int32 = 1
}
