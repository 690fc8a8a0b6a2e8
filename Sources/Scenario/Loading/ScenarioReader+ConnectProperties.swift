import MQTT

extension ScenarioReader {
    /// `broker.properties:` (MQTT 5 CONNECT): `sessionExpiry` (a duration), `receiveMaximum`,
    /// `maximumPacketSize` (a size) and `userProperties` (a mapping whose values are templates).
    /// Whether the protocol is 5 is the plan's to check, since `--protocol` may say (`FleetPlan`).
    func connectProperties(_ node: Node) -> BrokerConnectProperties? {
        let problemsBefore = diagnostics.count
        guard let entries = entries(node, of: "'broker.properties'", known: ScenarioKeys.brokerProperties.keys) else { return nil }
        var properties = BrokerConnectProperties()
        properties.location = SourceLocation(file: file, line: node.mark.line, column: node.mark.column)
        if let expiry = entries["sessionExpiry"], let seconds = duration(expiry, "sessionExpiry") {
            if seconds == seconds.rounded(), seconds >= 0, seconds <= Double(UInt32.max) {
                properties.sessionExpiry = UInt32(seconds)
            } else {
                report(
                    expiry.mark,
                    "expected whole seconds from 0s to 4294967295s (never expires) for 'sessionExpiry', found \(expiry.summary)")
            }
        }
        properties.receiveMaximum = integer(entries["receiveMaximum"], "receiveMaximum", in: 1...65535)
        if let size = entries["maximumPacketSize"], let bytes = self.size(size, "maximumPacketSize") {
            if bytes >= Self.smallestPacketLimit, bytes <= Int(UInt32.max) {
                properties.maximumPacketSize = UInt32(bytes)
            } else {
                report(
                    size.mark,
                    "expected from \(Self.smallestPacketLimit) bytes to 4294967295 bytes for 'maximumPacketSize', found \(size.summary)"
                        + " (the broker drops every packet to this connection above it, its CONNACK's answers too)")
            }
        }
        if let pairsNode = entries["userProperties"] {
            properties.userProperties = userProperties(pairsNode)
        }
        return diagnostics.count == problemsBefore ? properties : nil
    }

    /// Below this a Maximum Packet Size leaves room for nothing but the smallest packets.
    static let smallestPacketLimit = 64
}
