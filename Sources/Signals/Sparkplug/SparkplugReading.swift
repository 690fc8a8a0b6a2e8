/// A field's value as a Sparkplug metric carries it: the datatype its value has and the value,
/// or a null (both nil: a `null` dropout, a generator's null).
struct SparkplugReading {
    let dataType: SparkplugDataType?
    let value: SparkplugValue?

    static let null = SparkplugReading(dataType: nil, value: nil)
}
