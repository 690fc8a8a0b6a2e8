package struct PayloadSpec: Sendable {
    package var style: PayloadStyle
    package var fields: [FieldSpec]
    /// The text of the `template` style; ignored by the others. A `template` payload without one
    /// is written as the flat style.
    package var template: PayloadTemplate?
    /// Every payload's exact length in bytes (`payload.size`): the fields, then padding
    /// (`PayloadPadding`); `nil` for payloads as long as their fields. For `raw`, the bytes'.
    package var size: Int?

    package init(style: PayloadStyle = .milkcocoa, fields: [FieldSpec], template: PayloadTemplate? = nil, size: Int? = nil) {
        self.style = style
        self.fields = fields
        self.template = template
        self.size = size
    }
}
