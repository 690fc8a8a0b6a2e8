/// One payload field as the scenario declares it: a generator and the modifiers applied to its
/// numbers, or a group of fields written as a nested object. Immutable and shared by every device
/// of a group; `DeviceSignals` makes the per-device state from it.
package struct FieldSpec: Sendable {
    /// What makes the field's value.
    package enum Content: Sendable {
        case generator(any GeneratorRecipe)
        /// A nested object of these fields, in this order.
        case group([FieldSpec])
    }

    package var name: String
    package var content: Content
    /// Digits after the decimal point for numbers; `nil` keeps the generator's natural form.
    package var decimals: Int?
    /// Standard deviation of gaussian noise added to numbers.
    package var noise: Double?
    package var min: Double?
    package var max: Double?
    /// Sensor faults injected into the field's values.
    package var faults: FieldFaults
    /// What a dashboard that discovers the field shows of it: its unit and classes.
    package var entity = EntityHints()
    /// What a command may do to it; `nil` for a field no command touches.
    package var command: FieldCommand?

    /// A field whose value comes from `generator`.
    package init(
        name: String, generator: any GeneratorRecipe, decimals: Int? = nil,
        noise: Double? = nil, min: Double? = nil, max: Double? = nil,
        faults: FieldFaults = FieldFaults()
    ) {
        self.name = name
        self.content = .generator(generator)
        self.decimals = decimals
        self.noise = noise
        self.min = min
        self.max = max
        self.faults = faults
    }

    /// A field whose value is an object of `fields`: `"location":{"lat":…,"lon":…}`.
    package init(name: String, fields: [FieldSpec]) {
        self.name = name
        self.content = .group(fields)
        self.faults = FieldFaults()
    }

    /// The generator of a field made by one; `nil` for a group.
    package var generator: (any GeneratorRecipe)? {
        if case .generator(let generator) = content { return generator }
        return nil
    }

    /// The members of a group; `nil` for a field made by a generator.
    package var fields: [FieldSpec]? {
        if case .group(let fields) = content { return fields }
        return nil
    }
}

/// A field's `unit`, `deviceClass` and `stateClass`: nothing in its payload, everything in the
/// dashboards that discover it (Home Assistant's `unit_of_measurement`, `device_class`,
/// `state_class`).
package struct EntityHints: Sendable, Equatable {
    package var unit: String?
    package var deviceClass: String?
    package var stateClass: String?

    package init(unit: String? = nil, deviceClass: String? = nil, stateClass: String? = nil) {
        self.unit = unit
        self.deviceClass = deviceClass
        self.stateClass = stateClass
    }

    /// Home Assistant's state classes.
    package static let stateClasses = ["measurement", "total", "total_increasing"]
}

package enum PayloadStyle: String, Sendable, CaseIterable {
    /// `{"params":{"Accel_X":0.0123,...}}`, the Milkcocoa push format.
    case milkcocoa
    /// `{"Accel_X":0.0123,...}`.
    case flat
    /// A text with `{{field}}` placeholders (`PayloadSpec.template`): CSV lines, InfluxDB line
    /// protocol and the like.
    case template
    /// Each field alone, its bare value (`21.5`, `true`, `heat`, a group as a JSON object), on
    /// a topic of its own, `{topic}/{field}`: one topic per measurement, as Home Assistant's and
    /// Node-RED's users wire them.
    case perField
}

package struct PayloadSpec: Sendable {
    package var style: PayloadStyle
    package var fields: [FieldSpec]
    /// The text of the `template` style; ignored by the others. A `template` payload without one
    /// is written as the flat style.
    package var template: PayloadTemplate?

    package init(style: PayloadStyle = .milkcocoa, fields: [FieldSpec], template: PayloadTemplate? = nil) {
        self.style = style
        self.fields = fields
        self.template = template
    }
}
