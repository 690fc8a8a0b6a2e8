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
    /// The bytes of its one `bytes` field and nothing else: a binary payload, no JSON around it.
    case raw
}
