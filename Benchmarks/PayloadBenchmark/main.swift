// Payload generation cost: nanoseconds per message for each device group of the scenario files
// given (default: the shipped accelerometer scenario, a ten-field sensor, and a meter whose
// three formulas stand beside the same fields made by generators), encoding into a reused
// buffer as the event loop does; each group's fields also as a Sparkplug B DDATA (every metric
// by alias, with its edge node's seq), to set the two encodings side by side. Run a release
// build:
//
//   swift run -c release PayloadBenchmark [SCENARIO...]
//
// Instructions per JSON message, one scenario file at a time (divide by the messages):
//
//   PAYLOAD_BENCH_MESSAGES=20000 valgrind --tool=callgrind --collect-atstart=no \
//     --toggle-collect='*DeviceA0C6encode7elapsed*' .build/release/PayloadBenchmark FILE
import Foundation
import Scenario
import Signals

let tenFieldSensor = """
    name: ten-field-sensor
    devices:
      - name: sensor
        topic: t
        sample: 1Hz
        publish: 1/s
        payload:
          style: flat
          fields:
            seq: { counter: 0 }
            ts: { timestamp: ms }
            temperature: { sine: { min: 18, max: 26, period: 24h }, noise: 0.1, decimals: 2 }
            humidity: { uniform: { min: 30, max: 60 }, decimals: 1 }
            pressure: { sine: { min: 1000, max: 1020, period: 6h }, decimals: 1 }
            co2: { uniform: { min: 400, max: 1200 }, decimals: 0 }
            battery: { sine: { min: 3.6, max: 4.2, period: 48h }, decimals: 3 }
            rssi: { uniform: { min: -90, max: -40 }, decimals: 0 }
            status: { constant: ok }
            firmware: { constant: "1.4.2" }
    """

/// Formulas (`expr`) beside the same six fields made by generators.
let meters = """
    name: meters
    devices:
      - name: formulas
        topic: t
        publish: 1/s
        payload:
          style: flat
          fields:
            temp_c: { randomWalk: { start: 21, step: 0.1, min: 15, max: 30 }, decimals: 1 }
            temp_f: { expr: "temp_c * 1.8 + 32", decimals: 1 }
            voltage: { gaussian: { mean: 230, stddev: 2 }, decimals: 1 }
            current: { uniform: { min: 0, max: 16 }, decimals: 2 }
            power: { expr: "voltage * current / 1000", decimals: 3 }
            state: { expr: "power > 2 ? 'high' : 'low'" }
      - name: generators
        topic: t
        publish: 1/s
        payload:
          style: flat
          fields:
            temp_c: { randomWalk: { start: 21, step: 0.1, min: 15, max: 30 }, decimals: 1 }
            temp_f: { randomWalk: { start: 70, step: 0.2, min: 59, max: 86 }, decimals: 1 }
            voltage: { gaussian: { mean: 230, stddev: 2 }, decimals: 1 }
            current: { uniform: { min: 0, max: 16 }, decimals: 2 }
            power: { uniform: { min: 0, max: 3.7 }, decimals: 3 }
            state: { choice: { values: [high, low] } }
    """

func scenarios() throws -> [Scenario] {
    let files = CommandLine.arguments.dropFirst()
    if files.isEmpty {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return [
            try ScenarioLoader.load(file: root.appendingPathComponent("scenarios/milkcocoa-accelerometer.yaml").path, environment: [:]),
            try ScenarioLoader.load(text: tenFieldSensor, file: "ten-field-sensor.yaml", environment: [:]),
            try ScenarioLoader.load(text: meters, file: "meters.yaml", environment: [:]),
        ]
    }
    return try files.map { try ScenarioLoader.load(file: $0, environment: ProcessInfo.processInfo.environment) }
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

do {
    print("payload generation, one device a group, release build expected")
    for scenario in try scenarios() {
        for group in scenario.groups {
            let perSecond = group.publish.perSecond.isFinite ? group.publish.perSecond : 1000
            let signals = DeviceSignals(
                payload: group.payload, deviceID: "\(group.name)-1", index: 1, seed: 1,
                sampleInterval: group.sample.map { 1 / $0.perSecond })
            var buffer = PayloadBuffer(capacity: 4096)
            // PAYLOAD_BENCH_MESSAGES makes a run short enough for callgrind.
            let messages = ProcessInfo.processInfo.environment["PAYLOAD_BENCH_MESSAGES"].flatMap { Int($0) } ?? 1_000_000
            var bytes = 0
            let start = nanoseconds()
            for tick in 0..<messages {
                buffer.removeAll()
                let elapsed = Double(tick) / perSecond
                signals.encode(elapsed: elapsed, wallClock: 1_800_000_000 + elapsed, into: &buffer)
                bytes &+= buffer.count
            }
            let perMessage = Double(nanoseconds() - start) / Double(messages)
            let fields = group.payload.fields.count
            print(
                "\(scenario.name)/\(group.name): \(fields) fields, \(bytes / messages) bytes: \(String(format: "%.0f", perMessage)) ns per message"
            )
            let sparkplug = DeviceSignals(
                payload: group.payload, deviceID: "\(group.name)-1", index: 1, seed: 1,
                sampleInterval: group.sample.map { 1 / $0.perSecond })
            sparkplug.useSparkplug(firstAlias: 0, reporting: .everyMetric)
            var node = SparkplugEdgeNode(topic: SparkplugTopic(groupID: "bench", edgeNodeID: "node-1"))
            buffer.removeAll()
            sparkplug.encodeSparkplugBirth(elapsed: 0, wallClock: 1_800_000_000, into: &buffer)
            node.writeBirth(timestamp: 1_800_000_000_000, into: &buffer)
            var sparkplugBytes = 0
            let sparkplugStart = nanoseconds()
            for tick in 1...messages {
                buffer.removeAll()
                let elapsed = Double(tick) / perSecond
                _ = sparkplug.encodeSparkplugData(elapsed: elapsed, wallClock: 1_800_000_000 + elapsed, into: &buffer)
                node.appendSeq(into: &buffer)
                sparkplugBytes &+= buffer.count
            }
            let sparkplugPerMessage = Double(nanoseconds() - sparkplugStart) / Double(messages)
            print(
                "\(scenario.name)/\(group.name) as Sparkplug DDATA: \(sparkplug.sparkplugMetricNames.count) metrics, \(sparkplugBytes / messages) bytes: \(String(format: "%.0f", sparkplugPerMessage)) ns per message"
            )
        }
    }
} catch let error as ScenarioError {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
