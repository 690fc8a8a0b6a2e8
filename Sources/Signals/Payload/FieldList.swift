/// The fields of a payload (or of a group inside one), owned and in order, walked on the publish
/// path without a reference count changing: reading a class reference out of an array, even
/// through a buffer pointer, retains and releases it, once per field and publish (callgrind).
struct FieldList {
    /// Keeps the fields alive; `unretained` refers to the same ones.
    let fields: [FieldEncoder]
    private let unretained: [Unmanaged<FieldEncoder>]

    init(_ fields: [FieldEncoder]) {
        self.fields = fields
        unretained = fields.map { Unmanaged.passUnretained($0) }
    }

    /// Writes the fields as the members of an object, commas between those written: a field that
    /// drops out leaves no trace.
    @inline(__always)
    func writeMembers(at instant: PublishInstant, into buffer: inout PayloadBuffer) {
        unretained.withUnsafeBufferPointer { fields in
            var separated = false
            for field in fields where field._withUnsafeGuaranteedRef({ $0.writeMember(at: instant, into: &buffer, separated: separated) }) {
                separated = true
            }
        }
    }
}
