import Scripting
import Signals

/// A script's table as JSON: the payload of a message it sends (`{ topic = …, payload = { … } }`).
/// A table's keys in their sorted order, so a message is the same bytes in a run and its dry run;
/// a list as an array; texts escaped; numbers as devsim writes them.
enum ScriptJSON {
    static func write(_ value: ScriptValue, into buffer: inout PayloadBuffer) {
        switch value {
        case .number(let number): JSONWriter.writeNumber(number, decimals: nil, into: &buffer)
        case .integer(let integer): JSONWriter.writeInteger(integer, into: &buffer)
        case .bool(let flag): JSONWriter.writeBool(flag, into: &buffer)
        case .string: JSONWriter.writeString(value.text ?? "", into: &buffer)
        case .null: JSONWriter.writeNull(into: &buffer)
        case .list(let items):
            buffer.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                write(item, into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .table(let entries):
            buffer.append(UInt8(ascii: "{"))
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(key, into: &buffer)
                buffer.append(UInt8(ascii: ":"))
                write(entries[key]!, into: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
    }
}
