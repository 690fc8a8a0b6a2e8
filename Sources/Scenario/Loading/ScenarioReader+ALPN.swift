import MQTT

extension ScenarioReader {
    /// `tls.alpn`: the protocols the ClientHello offers, a list or one name. Each goes on the
    /// wire after a length byte, so it is 1 to 255 bytes; anything else is refused here, where
    /// its place is known, not at the first connection.
    func alpn(_ node: Node?) -> [String] {
        guard let node else { return [] }
        let items: [Node]
        if case .sequence(let sequence) = node.kind { items = sequence } else { items = [node] }
        return items.compactMap { item in
            guard let name = string(item, "alpn") else { return nil }
            guard (1...255).contains(name.utf8.count) else {
                report(item.mark, "expected a protocol name of 1 to 255 bytes for 'alpn' (such as x-amzn-mqtt-ca), found \(item.summary)")
                return nil
            }
            return name
        }
    }
}
