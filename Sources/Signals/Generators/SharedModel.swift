/// A model that several fields of a device read (`GeneratorContext.sharedModel`).
package protocol SharedModel: SampledModel {
    /// The label its seed is derived from, with the key it is shared by: written out, never a
    /// type's name, so that renaming a type cannot change a single seeded value. A label, once
    /// shipped, stays as it is.
    static var seedLabel: String { get }
}
