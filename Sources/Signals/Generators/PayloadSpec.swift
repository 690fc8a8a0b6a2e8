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
