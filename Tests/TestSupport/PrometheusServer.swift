import Foundation

/// A real Prometheus (Debian's `/usr/bin/prometheus`) on a free 127.0.0.1 port, with a
/// configuration the test gives and its data in a temporary directory, for tests of what a
/// dashboard asks of it.
///
/// ```swift
/// let prometheus = try PrometheusServer(config: "scrape_configs: …")
/// let samples = try prometheus.query("sum(rate(devsim_published_total[5s]))")
/// ```
public final class PrometheusServer: Sendable {
    /// One sample of an instant query's answer.
    public struct Sample: Sendable {
        public var labels: [String: String]
        /// `NaN` as Prometheus writes it (a quantile of no observation) stays `NaN`.
        public var value: Double
    }

    /// The loopback port its HTTP API listens on.
    public var port: UInt16 { process.port }
    /// The temporary directory holding `prometheus.yml`, the data and `prometheus.log`.
    public let directory: String
    /// Prometheus's log (warnings and errors).
    public var log: String { process.log }

    private let process: BrokerProcess

    /// Starts Prometheus with `config` (its `prometheus.yml`) and returns once `/-/ready` says so.
    public init(config: String, startTimeout: Double = 30) throws(TestSupportError) {
        let directory = try BrokerProcess.makeTemporaryDirectory(prefix: "devsim-prometheus")
        self.directory = directory
        do throws(TestSupportError) {
            let configPath = directory + "/prometheus.yml"
            let portPath = directory + "/port"
            try Self.write(config, to: configPath)
            // The listen address is a flag, not a line of the configuration: the shell reads the
            // port each try chose from a file.
            let command =
                "exec /usr/bin/prometheus --config.file='\(configPath)' --storage.tsdb.path='\(directory)/data' "
                + "--web.listen-address=127.0.0.1:$(cat '\(portPath)') --log.level=warn"
            let program = BrokerProcess.Program(name: "prometheus", executable: "/bin/sh", arguments: ["-c", command]) { port, _ in
                (try? HTTPGet.request(port: Int(port), path: "/-/ready", timeout: 1).status) == 200 ? .ready : .starting
            }
            process = try BrokerProcess(program: program, logPath: directory + "/prometheus.log", startTimeout: startTimeout) {
                port throws(TestSupportError) in
                try Self.write(String(port), to: portPath)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        process.stop(grace: 5)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// An instant query at this moment (`/api/v1/query`): its samples, none for an empty answer.
    /// A query Prometheus refuses (a syntax error) throws, with its reason.
    public func query(_ expression: String) throws(TestSupportError) -> [Sample] {
        let object = try api("/api/v1/query?query=" + Self.encoded(expression))
        guard let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] else {
            throw TestSupportError("prometheus answered '\(expression)' with no result: \(object)")
        }
        return result.map { series in
            let value = (series["value"] as? [Any])?.last as? String
            return Sample(labels: series["metric"] as? [String: String] ?? [:], value: value.flatMap(Double.init) ?? .nan)
        }
    }

    /// The label sets of the series `selector` matches (`/api/v1/series`), as Grafana's
    /// `label_values(SELECTOR, LABEL)` reads them.
    public func series(_ selector: String) throws(TestSupportError) -> [[String: String]] {
        let object = try api("/api/v1/series?match[]=" + Self.encoded(selector))
        guard let data = object["data"] as? [[String: String]] else {
            throw TestSupportError("prometheus answered series '\(selector)' with no data: \(object)")
        }
        return data
    }

    /// The names of every series Prometheus holds.
    public func metricNames() throws(TestSupportError) -> [String] {
        let object = try api("/api/v1/label/__name__/values")
        return object["data"] as? [String] ?? []
    }

    /// A GET of the HTTP API, its JSON answer; an error answer (`"status": "error"`) throws.
    private func api(_ path: String) throws(TestSupportError) -> [String: Any] {
        let response = try HTTPGet.request(port: Int(port), path: path)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body.utf8))) as? [String: Any]
        guard let object, object["status"] as? String == "success" else {
            throw TestSupportError("prometheus answered \(path) with \(response.status): \(response.body)")
        }
        return object
    }

    /// `text` as a URL's query value.
    private static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func write(_ text: String, to path: String) throws(TestSupportError) {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw TestSupportError("cannot write \(path): \(error)")
        }
    }
}
