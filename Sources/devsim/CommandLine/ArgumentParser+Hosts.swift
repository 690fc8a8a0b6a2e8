import MQTT
import Scenario

extension ArgumentParser {
    /// `--url`: one broker URL, or a comma list of a cluster's nodes (one scheme, one path, no
    /// user name: that is every node's, `--username`).
    static func urls(_ value: String, label: String) throws(UsageError) -> (BrokerURL, BrokerHosts?) {
        let texts = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var urls: [BrokerURL] = []
        for text in texts {
            do throws(BrokerURLError) {
                urls.append(try BrokerURL.parse(text))
            } catch {
                throw UsageError("\(label): \(error.message)")
            }
        }
        guard urls.count > 1 else { return (urls[0], nil) }
        for (text, url) in zip(texts, urls).dropFirst() {
            if url.scheme != urls[0].scheme || url.path != urls[0].path {
                throw UsageError(
                    "\(label): '\(text)' and '\(texts[0])' differ in scheme or path: the nodes of one cluster share a transport and TLS")
            }
        }
        if urls.contains(where: { $0.username != nil }) {
            throw UsageError("\(label): a list of URLs names no user: give it with --username (DEVSIM_USERNAME)")
        }
        var hosts = BrokerHosts(entries: [], scheme: urls[0].scheme, path: urls[0].path)
        for (text, url) in zip(texts, urls) {
            let entry = BrokerHosts.Entry(host: url.host, port: url.port)
            if hosts.entries.contains(entry) { throw UsageError("\(label): '\(text)' is in the list twice: each broker once") }
            hosts.entries.append(entry)
        }
        return (urls[0], hosts)
    }

    /// `--bind`: IP addresses, comma-separated.
    static func bindAddresses(_ value: String, label: String) throws(UsageError) -> BindAddresses {
        var addresses: [String] = []
        for text in value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            if let problem = BindAddresses.problem(with: text) { throw UsageError("\(label): \(problem)") }
            if addresses.contains(text) { throw UsageError("\(label): '\(text)' is given twice: each source address once") }
            addresses.append(text)
        }
        return BindAddresses(addresses: addresses, flag: label)
    }
}
