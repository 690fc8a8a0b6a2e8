/// A scripted device's fields (`script:`): each publish's values made before it is written, so
/// that the script sees them, as published, and may replace them; then written as any publish
/// is.
extension DeviceSignals {
    /// Keeps each field's reading for its publish, as a formula's fields are kept: a script reads
    /// them all, and replaces some.
    package func keepReadings() {
        for (_, field) in leaves { field.isRead = true }
    }

    /// The paths of the fields a script sees (`location.lat` inside a group).
    package var fieldPaths: [String] { leaves.map(\.path) }

    /// Each field's value in the publish at `instant`, as the payload shows it (numbers rounded
    /// to their decimals), `null` where it drops out; in `fieldPaths`' order.
    package func values(at instant: PublishInstant) -> [SignalValue] {
        leaves.map { $0.field.publishedValue(at: instant) }
    }

    /// The value of field `index` (of `fieldPaths`) in the publish at `instant` is `value` from
    /// now on: `null` drops it out. Its modifiers are not applied again; its decimals are, as it
    /// is written.
    package func replace(_ index: Int, with value: SignalValue, at instant: PublishInstant) {
        leaves[index].field.replace(with: value, at: instant)
    }

    /// Whether a field is a formula (`expr:`).
    package var hasFormulas: Bool { leaves.contains { $0.field.generator is FormulaMachine } }

    /// Makes the formulas of the publish at `instant` again, of the values a script left, except
    /// where it set a formula's own value: a script that changes `temp_c` changes `temp_f` with
    /// it, as a formula holds in every payload.
    package func refreshFormulas(at instant: PublishInstant) {
        for (_, field) in leaves where field.generator is FormulaMachine && field.replacedIndex != instant.index {
            field.forgetReading()
        }
    }
}
