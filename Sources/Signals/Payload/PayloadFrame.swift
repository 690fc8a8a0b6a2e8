/// The bytes around a payload's fields for a JSON style: encoded once per device, written per
/// publish.
struct PayloadFrame {
    let opening: [UInt8]
    let closing: [UInt8]

    init(style: PayloadStyle) {
        switch style {
        case .milkcocoa:
            opening = Array(#"{"params":{"#.utf8)
            closing = Array("}}".utf8)
        case .flat, .template:
            opening = Array("{".utf8)
            closing = Array("}".utf8)
        case .perField, .raw:
            opening = []
            closing = []
        }
    }
}
