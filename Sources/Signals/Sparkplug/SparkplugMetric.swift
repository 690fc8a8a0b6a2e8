/// One metric of a Sparkplug payload (6.4.16, `Metric`): what devsim writes in births and data,
/// and what it reads from NCMD and DCMD. A birth names every metric and gives its alias and
/// datatype; data and commands may give the alias alone.
package struct SparkplugMetric: Equatable, Sendable {
    package var name: String?
    package var alias: UInt64?
    /// Milliseconds since the epoch.
    package var timestamp: UInt64?
    /// Nil when the field is absent or holds a number the specification does not define.
    package var dataType: SparkplugDataType?
    package var isNull: Bool
    /// Nil for a null metric, and for the values devsim does not read (data sets, templates,
    /// extensions), or when no datatype says how to read an integer.
    package var value: SparkplugValue?

    package init(
        name: String? = nil, alias: UInt64? = nil, timestamp: UInt64? = nil, dataType: SparkplugDataType?,
        value: SparkplugValue?, isNull: Bool = false
    ) {
        self.name = name
        self.alias = alias
        self.timestamp = timestamp
        self.dataType = dataType
        self.value = value
        self.isNull = isNull
    }
}
