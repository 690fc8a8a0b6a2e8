extension ScenarioReader {
    /// `offline: drop`, `offline: buffer`, or the mapping form with bounds.
    func offline(_ node: Node) -> OfflinePolicy? {
        if node.scalarText != nil {
            switch choice(node, "offline", ["drop", "buffer"]) {
            case "drop": return .drop
            case "buffer":
                return .buffer(
                    maxMessages: OfflinePolicy.defaultMaxMessages,
                    maxBytes: OfflinePolicy.defaultMaxBytes)
            default: return nil
            }
        }
        guard let entries = entries(node, of: "'offline'", known: ScenarioKeys.offline.keys) else {
            return nil
        }
        let maxMessages = integer(entries["maxMessages"], "maxMessages", in: 1...Int.max)
        let maxBytesNode = entries["maxBytes"]
        var maxBytes = size(maxBytesNode, "maxBytes")
        if let bytes = maxBytes, bytes < 1, let maxBytesNode {
            report(maxBytesNode.mark, "expected a size above zero such as 64MB for 'maxBytes', found \(maxBytesNode.summary)")
            maxBytes = nil
        }
        guard let policyNode = entries["policy"] else {
            missing("policy", in: entries, of: "'offline' (drop or buffer)")
            return nil
        }
        switch choice(policyNode, "policy", ["drop", "buffer"]) {
        case "drop":
            for key in ["maxMessages", "maxBytes"] {
                if let bound = entries[key] {
                    report(bound.mark, "'\(key)' bounds the buffer; it applies only with 'policy: buffer'")
                }
            }
            return .drop
        case "buffer":
            return .buffer(
                maxMessages: maxMessages ?? OfflinePolicy.defaultMaxMessages,
                maxBytes: maxBytes ?? OfflinePolicy.defaultMaxBytes)
        default:
            return nil
        }
    }
}
