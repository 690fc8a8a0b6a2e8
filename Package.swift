// swift-tools-version:6.0
import PackageDescription

/// Release builds of the modules on the publish path check exclusive access statically only: the
/// dynamic checks of class properties (swift_beginAccess) were 11.5 % of the instructions per
/// message (callgrind, 50,000 QoS 0 messages at publish: max). Debug builds, the tests', keep them.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "devsim",
    products: [
        .executable(name: "devsim", targets: ["devsim"])
    ],
    targets: [
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // WebSocket framing, with no I/O of its own (Debian ships no pkg-config file for it).
        .systemLibrary(name: "CWslay", providers: [.apt(["libwslay-dev"])]),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // An embedded HTTP server, run from a Reactor loop through its epoll descriptor.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // sd_notify: readiness, status and the watchdog for systemd's Type=notify.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // Lua 5.4, for device scripts: sandboxed, its limits and its callbacks in C (shim.h).
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        // Linux headers Glibc's module leaves out (epoll, eventfd, prctl).
        .systemLibrary(name: "CLinux"),
        // Log lines (timestamp, level, label, metadata, message), on no other target: below every
        // module, so that any layer may log what it sees.
        .target(name: "Logging"),
        // The event loop, knowing nothing of MQTT: epoll, timers, the monotonic clock, jobs, locks;
        // its logger, which what runs on it logs to.
        .target(name: "Reactor", dependencies: ["CLinux", "Logging"], swiftSettings: hotPath),
        // MQTT's vocabulary, knowing no library: QoS, protocol versions, topics, a client's options.
        .target(name: "MQTT", swiftSettings: hotPath),
        // The Swift face of libmosquitto: clients (event sources of a Reactor loop), errors; its
        // TLS contexts are Transport's.
        .target(name: "Mosquitto", dependencies: ["CMosquitto", "Logging", "MQTT", "Reactor", "Transport"], swiftSettings: hotPath),
        // What carries MQTT bytes where libmosquitto cannot: the WebSocket bridge (libwslay
        // framing), on a Reactor loop; and OpenSSL, in one place: the TLS contexts of every
        // connection (libmosquitto's too), the verification that names a refusal, the check of
        // TLS files.
        .target(name: "Transport", dependencies: ["CWslay", "COpenSSL", "Logging", "MQTT", "Reactor"]),
        // Value generators, seeded randomness and payload encoding; knows nothing of YAML or MQTT.
        .target(name: "Signals", swiftSettings: hotPath),
        // Device scripts: one sandboxed Lua interpreter an event loop (or a dry run), its limits,
        // and the hooks a script defines, called with a device's table; knows nothing of MQTT.
        .target(name: "Scripting", dependencies: ["CLua", "Signals"]),
        // Scenario files: YAML/JSON with positions, interpolation, templates, quantities, the model.
        .target(name: "Scenario", dependencies: ["CYAML", "MQTT", "Scripting", "Signals"]),
        // A recording's statistics: the scenario of generators fitted to it (`record --infer`),
        // and how close a model's messages come to it; apart from the scenario files' reader.
        .target(name: "Inference", dependencies: ["Scenario"]),
        // The run's report, with no I/O stack beneath it: figures, histograms, the timeline, stage
        // and capacity figures, the --expect language and verdicts, the JSON/JUnit/CSV/HTML
        // writers and report merge. Scenario for its did-you-mean, Signals for the fault counts
        // and the number writer.
        .target(name: "Report", dependencies: ["Scenario", "Signals"]),
        // The fleet: devices, schedules, connection state machine, offline policy, the counters
        // and recorders that feed the report.
        .target(
            name: "Simulator",
            dependencies: ["Logging", "Reactor", "MQTT", "Mosquitto", "Report", "Scenario", "Scripting", "Signals", "Transport"],
            swiftSettings: hotPath),
        // The daemon's outside: the HTTP endpoint (libmicrohttpd on a Reactor loop), /metrics,
        // health and readiness, the live report.
        .target(name: "Service", dependencies: ["CMicroHTTPD", "CSystemd", "Reactor", "Report", "Simulator"]),
        .executableTarget(name: "devsim", dependencies: ["Inference", "Simulator", "Report", "Scenario", "MQTT", "Mosquitto", "Service"]),
        // Not a test: prints the cost of making payloads (scripts/bench.sh runs it).
        .executableTarget(name: "PayloadBenchmark", dependencies: ["Scenario", "Signals"], path: "Benchmarks/PayloadBenchmark"),
        // Not a test: prints the cost of a TLS context per device identity (scripts/bench.sh tls-contexts).
        .executableTarget(
            name: "TLSContextBenchmark", dependencies: ["COpenSSL", "MQTT", "Transport"], path: "Benchmarks/TLSContextBenchmark"),
        // Not a test: libFuzzer's target over the scenario loader (scripts/fuzz.sh builds it with
        // -sanitize=fuzzer); built plainly, it replays the inputs named on its command line.
        .executableTarget(name: "ScenarioFuzzer", dependencies: ["Scenario"], path: "Fuzz/ScenarioFuzzer"),

        // Shared by the integration tests: a real mosquitto on a free port, a scripted MQTT server.
        .target(name: "TestSupport", dependencies: ["MQTT", "Reactor", "Transport"], path: "Tests/TestSupport"),
        .testTarget(name: "ReactorTests", dependencies: ["Logging", "Reactor"]),
        .testTarget(name: "TransportTests", dependencies: ["Logging", "Transport", "Reactor", "TestSupport"]),
        .testTarget(name: "SignalsTests", dependencies: ["Signals", "TestSupport"]),
        .testTarget(name: "ScriptingTests", dependencies: ["Scripting", "Signals"]),
        .testTarget(name: "ScenarioTests", dependencies: ["Scenario", "MQTT", "Signals", "TestSupport"]),
        .testTarget(name: "InferenceTests", dependencies: ["Inference", "Scenario", "MQTT", "Simulator"]),
        .testTarget(name: "ReportTests", dependencies: ["Report"]),
        .testTarget(name: "MosquittoTests", dependencies: ["Logging", "Mosquitto", "MQTT", "Reactor", "TestSupport"]),
        // Golden/ holds the payload fixtures GoldenPayloadTests reads from the source tree.
        .testTarget(
            name: "SimulatorTests", dependencies: ["Simulator", "Report", "Logging", "MQTT", "Reactor", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "ServiceTests", dependencies: ["Service", "Report", "Simulator", "Reactor"]),
        .testTarget(name: "devsimTests", dependencies: ["devsim", "Report", "Scenario", "Service", "Simulator", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
