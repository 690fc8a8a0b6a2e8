/// A Sparkplug payload as a person reads it (`devsim sample`, `--dry-run`, a report's sample):
/// JSON with the timestamp, the seq where there is one, and the metrics by name,
/// `{"timestamp":1700000000000,"seq":3,"metrics":{"speed":101.6,"running":true}}`; a metric that
/// gives its datatype, as a birth's do, with it and its alias:
/// `"speed":{"value":101.6,"alias":1,"datatype":"Double"}`.
extension SparkplugPayload {
    /// `names` gives the name of each alias: a metric sent by alias alone shows by its name,
    /// or as `#alias` where `names` lacks it.
    package func text(names: [UInt64: String] = [:]) -> String {
        var buffer = PayloadBuffer()
        buffer.append(UInt8(ascii: "{"))
        if let timestamp { buffer.append(contentsOf: "\"timestamp\":\(timestamp),".utf8) }
        if let seq { buffer.append(contentsOf: "\"seq\":\(seq),".utf8) }
        buffer.append(contentsOf: "\"metrics\":{".utf8)
        for (index, metric) in metrics.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(metric.name ?? metric.alias.map { names[$0] ?? "#\($0)" } ?? "?", into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            // A birth's metrics say their datatype (and alias); data by alias says neither.
            guard let dataType = metric.dataType else {
                writeValue(of: metric, into: &buffer)
                continue
            }
            buffer.append(contentsOf: "{\"value\":".utf8)
            writeValue(of: metric, into: &buffer)
            if let alias = metric.alias { buffer.append(contentsOf: ",\"alias\":\(alias)".utf8) }
            buffer.append(contentsOf: ",\"datatype\":\"\(dataType.name)\"}".utf8)
        }
        buffer.append(contentsOf: "}}".utf8)
        return buffer.text
    }

    private func writeValue(of metric: SparkplugMetric, into buffer: inout PayloadBuffer) {
        switch metric.isNull ? nil : metric.value {
        case .int(let value)?: JSONWriter.writeInteger(value, into: &buffer)
        case .uint(let value)?: buffer.append(contentsOf: String(value).utf8)
        case .float(let value)?: JSONWriter.writeNumber(Double(value), decimals: nil, into: &buffer)
        case .double(let value)?: JSONWriter.writeNumber(value, decimals: nil, into: &buffer)
        case .bool(let value)?: JSONWriter.writeBool(value, into: &buffer)
        case .string(let text)?: JSONWriter.writeString(text, into: &buffer)
        case .bytes(let bytes)?: JSONWriter.writeString(bytes.map { String(hexByte: $0) }.joined(), into: &buffer)
        case nil: JSONWriter.writeNull(into: &buffer)
        }
    }
}

extension String {
    fileprivate init(hexByte byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
