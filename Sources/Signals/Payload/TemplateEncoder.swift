/// A `template` payload for one device: the template's literal text (with `{{id}}` and
/// `{{index}}` already filled in) as bytes, and the fields its placeholders refer to.
///
/// Each field a placeholder names is encoded once per publish, into a scratch buffer kept by the
/// device, however often the template repeats it: its faults fire and are counted once, and a
/// repeated placeholder shows the same value. Fields no placeholder names are not made at all.
final class TemplateEncoder {
    enum Piece {
        case text([UInt8])
        /// The index into `referenced` of a field's value.
        case field(Int)
    }

    let pieces: [Piece]
    /// The fields the template names, each once, in order of first appearance.
    let referenced: [FieldEncoder]
    private var scratch = PayloadBuffer()
    /// Where each referenced field's value lies in `scratch` for the current publish.
    private var starts: [Int]
    private var ends: [Int]

    init(template: PayloadTemplate, fields: [FieldEncoder], names: [String], deviceID: String, index: Int) {
        var pieces: [Piece] = []
        var referenced: [FieldEncoder] = []
        var slots: [Int: Int] = [:]
        var text: [UInt8] = []
        func flush() {
            if !text.isEmpty { pieces.append(.text(text)) }
            text = []
        }
        for segment in template.segments {
            switch segment {
            case .text(let literal):
                text.append(contentsOf: literal.utf8)
            case .placeholder(let name):
                if let position = names.firstIndex(of: name) {
                    flush()
                    let slot = slots[position] ?? referenced.count
                    if slot == referenced.count {
                        slots[position] = slot
                        referenced.append(fields[position])
                    }
                    pieces.append(.field(slot))
                } else if name == "id" {
                    text.append(contentsOf: deviceID.utf8)
                } else if name == "index" {
                    text.append(contentsOf: String(index).utf8)
                } else {
                    // Unknown: the loader refuses these; written as it stands otherwise.
                    text.append(contentsOf: "{{\(name)}}".utf8)
                }
            }
        }
        flush()
        self.pieces = pieces
        self.referenced = referenced
        starts = Array(repeating: 0, count: referenced.count)
        ends = Array(repeating: 0, count: referenced.count)
    }

    func encode(at instant: PublishInstant, into buffer: inout PayloadBuffer) {
        scratch.removeAll()
        referenced.withUnsafeBufferPointer { fields in
            for slot in fields.indices {
                starts[slot] = scratch.count
                fields[slot].writeTemplateValue(at: instant, into: &scratch)
                ends[slot] = scratch.count
            }
        }
        pieces.withUnsafeBufferPointer { pieces in
            for index in pieces.indices {
                switch pieces[index] {
                case .text(let bytes):
                    buffer.append(contentsOf: bytes)
                case .field(let slot):
                    scratch.withBytes { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[starts[slot]..<ends[slot]])) }
                }
            }
        }
    }
}
