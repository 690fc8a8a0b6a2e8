import Foundation
import Testing
@testable import Scenario

/// The files that ship devsim — `Dockerfile`, `deploy/` and `examples/` — are read by tools this
/// machine does not have (docker, kubectl, CI runners), so these tests hold them to what those
/// tools and devsim need: valid YAML, an Indexed Job whose shard count is its completions count, a
/// grace period above the drain time, a scenario that loads, a non-root image with an exec-form
/// entrypoint. The YAML parser is the scenario loader's own (libyaml).
@Suite struct DeploymentFilesTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Document: CustomTestStringConvertible, Sendable {
        let file: String
        let line: Int
        let text: String
        var testDescription: String { "\(file):\(line)" }
    }

    /// Every `.yaml`/`.yml` under `deploy/`, `examples/` and `.github/workflows/`, split into
    /// documents on `---` lines.
    static var documents: [Document] {
        var documents: [Document] = []
        for folder in ["deploy", "examples", ".github/workflows"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            var files: [URL] = []
            for case let url as URL in walker where ["yaml", "yml"].contains(url.pathExtension) { files.append(url) }
            for url in files.sorted(by: { $0.path < $1.path }) {
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                let name = folder + url.path.dropFirst(base.path.count)
                var start = 1
                var lines: [Substring] = []
                func flush() {
                    let body = lines.joined(separator: "\n")
                    let meaningful = lines.contains { line in
                        let trimmed = line.trimmingCharacters(in: .whitespaces)
                        return !trimmed.isEmpty && !trimmed.hasPrefix("#")
                    }
                    if meaningful { documents.append(Document(file: name, line: start, text: body)) }
                }
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    if line.trimmingCharacters(in: .whitespaces) == "---" {
                        flush()
                        lines = []
                        start = number + 2
                    } else {
                        lines.append(line)
                    }
                }
                flush()
            }
        }
        return documents
    }

    static func parse(_ document: Document) -> Node? {
        YAMLParser(bytes: Array(document.text.utf8)).root
    }

    static func manifests(kind: String) -> [(Document, Node)] {
        documents.compactMap { document in
            guard let node = parse(document), node["kind"]?.scalarText == kind else { return nil }
            return (document, node)
        }
    }

    @Test func thereAreFilesToCheck() {
        let files = Set(Self.documents.map(\.file))
        #expect(files.contains("deploy/kubernetes/job.yaml"))
        #expect(files.contains("deploy/kubernetes/configmap.yaml"))
        #expect(files.contains("examples/docker-compose.yml"))
        #expect(files.contains("examples/github-actions.yml"))
        #expect(files.contains("examples/gitlab-ci.yml"))
        #expect(files.contains(".github/workflows/release.yml"))
        #expect(files.contains("deploy/grafana/docker-compose.yml"))
        #expect(files.contains("deploy/grafana/grafana/provisioning/dashboards/devsim.yaml"))
    }

    static func node(_ file: String) throws -> Node {
        let document = try #require(documents.first { $0.file == file }, "no \(file)")
        return try #require(parse(document), "\(file) does not parse")
    }

    /// The `run:` texts of a job's steps.
    static func scripts(of job: Node?) -> [String] {
        job?["steps"]?.items?.compactMap { $0["run"]?.scalarText } ?? []
    }

    /// Issue 16, item 1: what a broker team copies into its own CI works outside this
    /// repository: the published image, a maintained mosquitto, and the verdicts shown as test
    /// results, not only kept as a file.
    @Test func theCIExamplesUseThePublishedImageAMaintainedBrokerAndShowTheVerdicts() throws {
        for file in ["examples/github-actions.yml", "examples/gitlab-ci.yml"] {
            let text = try #require(Self.documents.first { $0.file == file }?.text)
            #expect(!text.contains("docker build"), "\(file) builds devsim, which only works in devsim's repository")
            #expect(text.contains("DEVSIM_IMAGE: ghcr.io/devsim/devsim:"), "\(file) does not pin the published image")
            #expect(text.contains("eclipse-mosquitto:2") && !text.contains("eclipse-mosquitto:1"), "\(file): mosquitto 1.6 is end of life")
        }
        let github = try Self.node("examples/github-actions.yml")
        let steps = try #require(github["jobs"]?["broker-load"]?["steps"]?.items)
        let run = try #require(Self.scripts(of: github["jobs"]?["broker-load"]).first { $0.contains("devsim/scenarios") })
        #expect(run.contains("\"$DEVSIM_IMAGE\" run") && run.contains("--report /reports/devsim.xml --report-format junit"))
        let results = try #require(steps.first { $0["uses"]?.scalarText?.hasPrefix("mikepenz/action-junit-report@") == true })
        #expect(results["with"]?["report_paths"]?.scalarText == "reports/devsim.xml")
        #expect(results["if"]?.scalarText == "always()", "a failed verdict is the one to show")
        #expect(github["permissions"]?["checks"]?.scalarText == "write")

        let gitlab = try Self.node("examples/gitlab-ci.yml")
        let job = gitlab["broker-load"]
        #expect(job?["image"]?["name"]?.scalarText == "$DEVSIM_IMAGE")
        #expect(job?["artifacts"]?["reports"]?["junit"]?.scalarText == "devsim.xml")
        #expect(job?["artifacts"]?["when"]?.scalarText == "always")
    }

    /// The release workflow ships what `scripts/package.sh` builds and `scripts/package-test.sh`
    /// proves, and the image to the repository's own registry path, with the Dockerfile's toolchain.
    @Test func theReleaseWorkflowShipsTestedPackagesAndTheImage() throws {
        let workflow = try Self.node(".github/workflows/release.yml")
        #expect(workflow["on"]?["push"]?["tags"]?.items?.first?.scalarText == "v*")
        let packages = workflow["jobs"]?["packages"]
        #expect(Self.scripts(of: packages).contains { $0.contains("bash scripts/package-test.sh dist") })
        #expect(Self.scripts(of: packages).contains { $0.contains("$GITHUB_REF_NAME") }, "the tag is checked against the version")
        let attach = packages?["steps"]?.items?.first { $0["uses"]?.scalarText?.hasPrefix("softprops/action-gh-release@") == true }
        #expect(attach?["with"]?["files"]?.scalarText == "dist/*")
        let image = try #require(Self.scripts(of: workflow["jobs"]?["image"]).first { $0.contains("docker push") })
        #expect(image.contains("ghcr.io/${GITHUB_REPOSITORY,,}"))
        #expect(workflow["permissions"]?["packages"]?.scalarText == "write")
        for script in ["scripts/package.sh", "scripts/package-test.sh"] {
            #expect(FileManager.default.isExecutableFile(atPath: Self.root.appendingPathComponent(script).path), "\(script)")
        }
        let dockerfile = try String(contentsOf: Self.root.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let container = try #require(packages?["container"]?.scalarText)
        #expect(dockerfile.contains("ARG SWIFT_IMAGE=\(container)\n"), "the packages and the image are built with one toolchain")
    }

    @Test(arguments: documents) func isValidYAML(_ document: Document) {
        let parsed = YAMLParser(bytes: Array(document.text.utf8))
        for problem in parsed.problems {
            Issue.record("\(document.file):\(document.line + problem.mark.line - 1):\(problem.mark.column): \(problem.message)")
        }
        guard case .mapping? = parsed.root?.kind else {
            Issue.record("\(document.testDescription): expected a mapping at the top")
            return
        }
    }

    @Test func kubernetesManifestsNameTheirKind() {
        for document in Self.documents where document.file.hasPrefix("deploy/kubernetes/") {
            let node = Self.parse(document)
            #expect(node?["apiVersion"]?.scalarText != nil, "\(document.testDescription) has no apiVersion")
            #expect(node?["kind"]?.scalarText != nil, "\(document.testDescription) has no kind")
        }
    }

    @Test func theJobIsIndexedAndPassesItsShardCount() throws {
        let jobs = Self.manifests(kind: "Job")
        try #require(jobs.count == 1, "expected one Job under deploy/ or examples/")
        let (document, job) = jobs[0]
        let spec = try #require(job["spec"], "\(document.file): no spec")
        #expect(spec["completionMode"]?.scalarText == "Indexed")
        let completions = try #require(spec["completions"]?.scalarText.flatMap { Int($0) }, "\(document.file): no completions")
        let parallelism = spec["parallelism"]?.scalarText.flatMap { Int($0) } ?? 1
        #expect(completions > 1)
        #expect(parallelism >= 1 && parallelism <= completions)

        let pod = try #require(spec["template"]?["spec"], "\(document.file): no pod template")
        let containers = try #require(pod["containers"]?.items, "\(document.file): no containers")
        let devsim = try #require(containers.first { $0["name"]?.scalarText == "devsim" }, "no container named devsim")
        let env = Self.environment(of: devsim)
        // devsim runs shard JOB_COMPLETION_INDEX of DEVSIM_SHARDS: anything but `completions` runs
        // some devices twice or never.
        #expect(env["DEVSIM_SHARDS"] == String(completions))
        #expect(env["DEVSIM_SHARD"] == nil, "a fixed DEVSIM_SHARD would give every pod the same slice")
        #expect(env["DEVSIM_HOST"] == "mosquitto")

        // The grace period must cover the drain (5 s unless DEVSIM_DRAIN_TIMEOUT says otherwise).
        let grace = try #require(
            pod["terminationGracePeriodSeconds"]?.scalarText.flatMap { Int($0) },
            "\(document.file): no terminationGracePeriodSeconds")
        let drain = try env["DEVSIM_DRAIN_TIMEOUT"].map { try Durations.parse($0) } ?? 5
        #expect(Double(grace) > drain)
        #expect(grace > 5)

        #expect(pod["securityContext"]?["runAsNonRoot"]?.scalarText == "true")
        let requests = devsim["resources"]?["requests"]
        #expect(
            requests?["cpu"]?.scalarText != nil && requests?["memory"]?.scalarText != nil,
            "the Job's pods should request cpu and memory")
    }

    /// The ConfigMap's scenario loads, with the Job's environment, as the whole fleet.
    @Test func theJobsScenarioLoads() throws {
        let (_, job) = try #require(Self.manifests(kind: "Job").first)
        let pod = try #require(job["spec"]?["template"]?["spec"])
        let devsim = try #require(pod["containers"]?.items?.first)
        let env = Self.environment(of: devsim)
        let argumentNodes = try #require(devsim["args"]?.items, "the devsim container has no args")
        let arguments = argumentNodes.compactMap { $0.scalarText }
        let path = try #require(arguments.first { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }, "the Job runs no scenario file")

        // The volume mounted over the scenario's folder is a ConfigMap holding that file.
        let folder = (path as NSString).deletingLastPathComponent
        let mount = try #require(
            devsim["volumeMounts"]?.items?.first { $0["mountPath"]?.scalarText == folder },
            "nothing is mounted at \(folder)")
        let volume = try #require(pod["volumes"]?.items?.first { $0["name"]?.scalarText == mount["name"]?.scalarText })
        let mapName = try #require(volume["configMap"]?["name"]?.scalarText, "\(folder) is not a ConfigMap")
        let configMap = try #require(
            Self.manifests(kind: "ConfigMap").first { $0.1["metadata"]?["name"]?.scalarText == mapName },
            "no ConfigMap \(mapName)")
        let text = try #require(
            configMap.1["data"]?[(path as NSString).lastPathComponent]?.scalarText,
            "ConfigMap \(mapName) has no \((path as NSString).lastPathComponent)")

        let scenario = try ScenarioLoader.load(text: text, file: path, environment: env)
        let devices = scenario.groups.reduce(0) { $0 + $1.count }
        if let expected = env["DEVICES"].flatMap({ Int($0) }) {
            #expect(devices == expected)
        }
        // 100,000 devices as 10 shards: about 10,000 per pod, what the resources are sized for.
        let completions = try #require(job["spec"]?["completions"]?.scalarText.flatMap { Int($0) })
        #expect(devices / completions <= 20_000, "more than 20,000 devices per pod; add shards")
    }

    /// Issue 13, item 7: the long-running feed's probes are devsim's, on the port it serves.
    @Test func theDeploymentProbesDevsimsEndpointAndIsScraped() throws {
        let (_, deployment) = try #require(Self.manifests(kind: "Deployment").first { $0.0.file == "deploy/kubernetes/deployment.yaml" })
        let pod = try #require(deployment["spec"]?["template"])
        let container = try #require(pod["spec"]?["containers"]?.items?.first)
        let arguments = container["args"]?.items?.compactMap(\.scalarText) ?? []
        let http = try #require(arguments.firstIndex(of: "--http").map { arguments[$0 + 1] }, "\(arguments)")
        #expect(http == "0.0.0.0:9180" && arguments.contains("--http-token-file"), "off loopback with a token: \(arguments)")
        #expect(container["ports"]?.items?.first?["containerPort"]?.scalarText == "9180")
        #expect(container["livenessProbe"]?["httpGet"]?["path"]?.scalarText == "/healthz")
        #expect(container["readinessProbe"]?["httpGet"]?["path"]?.scalarText == "/readyz")
        let annotations = pod["metadata"]?["annotations"]
        #expect(annotations?["prometheus.io/scrape"]?.scalarText == "true" && annotations?["prometheus.io/port"]?.scalarText == "9180")
    }

    @Test func theSystemdUnitIsANotifyServiceHardened() throws {
        let unit = try String(contentsOf: Self.root.appendingPathComponent("deploy/systemd/devsim.service"), encoding: .utf8)
        let settings = Set(unit.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }.map(String.init))
        for line in [
            "Type=notify", "WatchdogSec=30s", "DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "CapabilityBoundingSet=",
            "ExecStart=/usr/bin/devsim run ${DEVSIM_SCENARIO}",
        ] {
            #expect(settings.contains(line), "\(line)")
        }
    }

    @Test func theDockerfileRunsAsNonRootWithAnExecFormEntrypoint() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("Dockerfile"), encoding: .utf8)
        var instructions: [(keyword: String, argument: String)] = []
        var pending = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
            if trimmed.hasSuffix("\\") {
                pending += trimmed.dropLast() + " "
                continue
            }
            let whole = pending + trimmed
            pending = ""
            let parts = whole.split(separator: " ", maxSplits: 1)
            instructions.append((parts[0].uppercased(), parts.count > 1 ? String(parts[1]) : ""))
        }
        let stages = instructions.indices.filter { instructions[$0].keyword == "FROM" }
        #expect(stages.count >= 2, "a multi-stage build")
        let runtime = instructions[(stages.last ?? 0)...]
        #expect(instructions.contains { $0.keyword == "ARG" && $0.argument.hasPrefix("SWIFT_IMAGE=") })
        #expect(instructions.contains { $0.keyword == "ARG" && $0.argument.hasPrefix("RUNTIME_IMAGE=") })

        let user = try #require(runtime.last { $0.keyword == "USER" }?.argument, "the runtime stage sets no USER")
        let name = user.split(separator: ":").first.map(String.init) ?? ""
        #expect(name != "root" && name != "0", "USER \(user) is root")

        func execForm(_ keyword: String) throws -> [String] {
            let argument = try #require(runtime.last { $0.keyword == keyword }?.argument, "no \(keyword)")
            let array = try JSONSerialization.jsonObject(with: Data(argument.utf8)) as? [String]
            return try #require(array, "\(keyword) \(argument) is not exec form (a JSON array of strings)")
        }
        #expect(try execForm("ENTRYPOINT") == ["devsim"])
        // The default CMD runs a scenario that is baked in.
        let command = try execForm("CMD")
        #expect(command.first == "run")
        let baked = "/usr/share/devsim/scenarios/"
        #expect(runtime.contains { $0.keyword == "COPY" && $0.argument.hasSuffix(baked) })
        for scenario in command where scenario.hasPrefix(baked) {
            let file = Self.root.appendingPathComponent("scenarios/" + scenario.dropFirst(baked.count))
            #expect(FileManager.default.fileExists(atPath: file.path), "CMD runs \(scenario), not in scenarios/")
        }
    }

    /// Scenarios the examples run from the image exist in `scenarios/`.
    @Test func examplesRunBakedInScenarios() throws {
        let baked = "/usr/share/devsim/scenarios/"
        for document in Self.documents where document.file.hasPrefix("examples/") {
            var rest = Substring(document.text)
            while let range = rest.range(of: baked) {
                let name = rest[range.upperBound...].prefix { !" \"'\n,]".contains($0) }
                let file = Self.root.appendingPathComponent("scenarios/" + name)
                #expect(FileManager.default.fileExists(atPath: file.path), "\(document.file) runs \(baked)\(name), not in scenarios/")
                rest = rest[range.upperBound...]
            }
        }
    }

    // MARK: The Grafana example (issue 25, item 10)

    static let grafana = root.appendingPathComponent("deploy/grafana")

    /// A compose service's bind mounts: the host path (relative to the compose file, resolved)
    /// and where it lands in the container.
    static func mounts(of service: Node?) -> [(source: URL, target: String)] {
        (service?["volumes"]?.items ?? []).compactMap { item in
            let parts = (item.scalarText ?? "").split(separator: ":").map(String.init)
            guard parts.count >= 2, parts[0].hasPrefix(".") else { return nil }
            return (grafana.appendingPathComponent(parts[0]).standardizedFileURL, parts[1])
        }
    }

    /// The host file or folder a service mounts at `target`, or at the folder holding it.
    static func hostPath(of target: String, in service: Node?) -> URL? {
        for mount in mounts(of: service) {
            if mount.target == target { return mount.source }
            if target.hasPrefix(mount.target + "/") {
                return mount.source.appendingPathComponent(String(target.dropFirst(mount.target.count + 1)))
            }
        }
        return nil
    }

    /// The path of `url` as `documents` names it (`deploy/grafana/…`).
    static func documentName(_ url: URL) -> String {
        String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
    }

    static func dashboardModel() throws -> [String: Any] {
        let data = try Data(contentsOf: grafana.appendingPathComponent("grafana/dashboards/devsim.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The compose file runs published images at pinned versions, devsim built from this
    /// repository, and mounts only files that are in the folder.
    @Test func theGrafanaExampleRunsPublishedImagesAndMountsFilesThatExist() throws {
        let compose = try Self.node("deploy/grafana/docker-compose.yml")
        let services = try #require(compose["services"])
        #expect(services["mosquitto"]?["image"]?.scalarText == "eclipse-mosquitto:2")
        let prometheus = try #require(services["prometheus"]?["image"]?.scalarText)
        #expect(prometheus.wholeMatch(of: /prom\/prometheus:v3\.\d+\.\d+/) != nil, "a pinned Prometheus 3: \(prometheus)")
        let grafana = try #require(services["grafana"]?["image"]?.scalarText)
        #expect(grafana.wholeMatch(of: /grafana\/grafana:1[2-9]\.\d+\.\d+/) != nil, "a pinned Grafana 12 or later: \(grafana)")
        let context = try #require(services["devsim"]?["build"]?["context"]?.scalarText)
        let dockerfile = Self.grafana.appendingPathComponent(context).appendingPathComponent("Dockerfile")
        #expect(FileManager.default.fileExists(atPath: dockerfile.path), "devsim is built from \(dockerfile.path)")
        #expect(services["capacity"]?["image"]?.scalarText == services["devsim"]?["image"]?.scalarText, "the search runs the image built")
        guard case .mapping(let pairs) = services.kind else { return }
        var mounted = 0
        for pair in pairs {
            for mount in Self.mounts(of: pair.value) {
                mounted += 1
                #expect(
                    FileManager.default.fileExists(atPath: mount.source.path), "\(pair.key.scalarText ?? "?") mounts \(mount.source.path)")
            }
        }
        #expect(mounted >= 8)
        let acl = try String(contentsOf: Self.grafana.appendingPathComponent("mosquitto/mosquitto.conf"), encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("acl_file ") }.map { String($0.dropFirst("acl_file ".count)) }
        #expect(
            acl.flatMap { Self.hostPath(of: $0, in: services["mosquitto"]) }.map { FileManager.default.fileExists(atPath: $0.path) } == true
        )
    }

    /// Grafana gets the dashboard from its provider's folder, and its Prometheus as the
    /// datasource the dashboard starts on; the dashboard's queries all go through that variable.
    @Test func grafanaIsProvisionedWithTheDashboardAndItsPrometheus() throws {
        let services = try #require(try Self.node("deploy/grafana/docker-compose.yml")["services"])
        let grafana = services["grafana"]
        let provisioning = try #require(Self.hostPath(of: "/etc/grafana/provisioning", in: grafana), "no provisioning mounted")

        let providerFile = provisioning.appendingPathComponent("dashboards/devsim.yaml")
        let provider = try #require(try Self.node(Self.documentName(providerFile))["providers"]?.items?.first)
        #expect(provider["type"]?.scalarText == "file")
        let folder = try #require(provider["options"]?["path"]?.scalarText)
        let dashboards = try #require(Self.hostPath(of: folder, in: grafana), "the provider reads \(folder), which is not mounted")
        #expect(FileManager.default.fileExists(atPath: dashboards.appendingPathComponent("devsim.json").path))
        let home = try #require(grafana?["environment"]?["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]?.scalarText)
        #expect(Self.hostPath(of: home, in: grafana)?.path == dashboards.appendingPathComponent("devsim.json").path)

        let datasourceFile = provisioning.appendingPathComponent("datasources/prometheus.yaml")
        let datasource = try #require(try Self.node(Self.documentName(datasourceFile))["datasources"]?.items?.first)
        #expect(datasource["type"]?.scalarText == "prometheus")
        let url = try #require(datasource["url"]?.scalarText.flatMap(URL.init(string:)))
        #expect(url.host.map { services[$0] != nil } == true && url.port == 9090, "\(url) is no service of the compose file")

        let model = try Self.dashboardModel()
        #expect((model["schemaVersion"] as? Int ?? 0) >= 39 && model["uid"] as? String == "devsim")
        let variables = (model["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        let source = try #require(variables.first { $0["type"] as? String == "datasource" })
        #expect(source["query"] as? String == "prometheus")
        #expect(
            (source["current"] as? [String: Any])?["value"] as? String == datasource["uid"]?.scalarText, "starts on the provisioned one")
        let group = try #require(variables.first { $0["name"] as? String == "group" })
        #expect((group["definition"] as? String)?.hasPrefix("label_values(devsim_") == true && group["allValue"] as? String == ".*")
        #expect(group["includeAll"] as? Bool == true && group["multi"] as? Bool == true)

        var panels = model["panels"] as? [[String: Any]] ?? []
        panels += panels.flatMap { $0["panels"] as? [[String: Any]] ?? [] }
        let ids = panels.compactMap { $0["id"] as? Int }
        #expect(ids.count == panels.count && Set(ids).count == ids.count, "every panel has an id of its own")
        var cells = Set<[Int]>()
        for panel in panels {
            let title = panel["title"] as? String ?? "?"
            let grid = panel["gridPos"] as? [String: Int] ?? [:]
            let (x, y, w, h) = (grid["x"] ?? -1, grid["y"] ?? -1, grid["w"] ?? 0, grid["h"] ?? 0)
            #expect(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 24, "\(title): \(grid)")
            for column in max(x, 0)..<min(x + w, 24) {
                for line in max(y, 0)..<(y + h) {
                    #expect(cells.insert([column, line]).inserted, "\(title) overlaps another panel at \(column),\(line)")
                }
            }
            guard panel["type"] as? String != "row" else { continue }
            #expect((panel["datasource"] as? [String: String])?["uid"] == "${datasource}", "\(title)")
            let targets = panel["targets"] as? [[String: Any]] ?? []
            #expect(!targets.isEmpty, "\(title) asks nothing")
            for target in targets {
                #expect((target["datasource"] as? [String: String])?["uid"] == "${datasource}", "\(title)")
                #expect((target["expr"] as? String)?.contains("devsim_") == true, "\(title)")
            }
        }
    }

    /// Prometheus scrapes the compose file's devsims where they serve, with the token they take.
    @Test func prometheusScrapesTheExamplesDevsimsWithTheirToken() throws {
        let services = try #require(try Self.node("deploy/grafana/docker-compose.yml")["services"])
        let prometheus = services["prometheus"]
        let configFile = try #require(Self.hostPath(of: "/etc/prometheus/prometheus.yml", in: prometheus))
        let job = try #require(try Self.node(Self.documentName(configFile))["scrape_configs"]?.items?.first)
        let credentials = try #require(job["authorization"]?["credentials_file"]?.scalarText)
        let token = try #require(Self.hostPath(of: credentials, in: prometheus), "\(credentials) is not mounted")
        let targets = (job["static_configs"]?.items ?? []).flatMap { $0["targets"]?.items?.compactMap(\.scalarText) ?? [] }
        #expect(targets.count == 2)
        for target in targets {
            let parts = target.split(separator: ":").map(String.init)
            let service = try #require(services[parts[0]], "\(target) is no service")
            let command = service["command"]?.items?.compactMap(\.scalarText) ?? []
            let http = command.firstIndex(of: "--http").map { command[$0 + 1] }
            #expect(http == "0.0.0.0:\(parts.last ?? "")", "\(parts[0]) serves at \(http ?? "nothing")")
            let file = try #require(command.firstIndex(of: "--http-token-file").map { command[$0 + 1] })
            #expect(Self.hostPath(of: file, in: service)?.path == token.path, "\(parts[0]) takes the token Prometheus sends")
        }
        // The feed's scenario is the folder's, and loads.
        let devsim = services["devsim"]
        let command = devsim?["command"]?.items?.compactMap(\.scalarText) ?? []
        let scenario = try #require(command.first { $0.hasSuffix(".yaml") }.flatMap { Self.hostPath(of: $0, in: devsim) })
        let loaded = try ScenarioLoader.load(
            text: String(contentsOf: scenario, encoding: .utf8), file: scenario.path, environment: ["DEVICES": "200"])
        #expect(loaded.groups.map(\.name) == ["meter", "tracker", "intruder"])
    }

    static func environment(of container: Node) -> [String: String] {
        var env: [String: String] = [:]
        for item in container["env"]?.items ?? [] {
            if let name = item["name"]?.scalarText, let value = item["value"]?.scalarText { env[name] = value }
        }
        return env
    }
}

private extension Node {
    subscript(key: String) -> Node? {
        guard case .mapping(let pairs) = kind else { return nil }
        return pairs.last { $0.key.scalarText == key }?.value
    }

    var items: [Node]? {
        guard case .sequence(let items) = kind else { return nil }
        return items
    }
}
