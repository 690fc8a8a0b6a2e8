import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 29, item 2, against a real mosquitto: every payload of a sized group is exactly its
/// size and parses as the same JSON; a raw group's payloads are its bytes.
@Suite(.tags(.integration), .notUnitOnly) struct PayloadSizeRunTests {
    @Test func everyPayloadOfASizedGroupIsExactlyItsSizeAndParses() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "sized/#")
        let file = try RunFiles.scenario(
            "sized.yaml",
            """
            devices:
              - name: kb
                topic: "sized/{id}"
                publish: 10/s
                payload:
                  size: 1KB
                  fields:
                    seq: { counter: 0 }
                    t: { gaussian: { mean: 0, stddev: 1000 } }
                    state: { choice: { values: [on, "a much longer state"] } }
              - name: line
                topic: "sized/{id}"
                publish: 10/s
                payload:
                  style: template
                  template: "seq={{seq}} state={{state}}"
                  size: 100
                  fields:
                    seq: { counter: 0 }
                    state: { choice: { values: [on, "a much longer state"] } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--duration", "2s"], report: true)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try RunFiles.report(file + ".json")
        let published = report["published"] as? Int ?? 0
        #expect(subscriber.waitFor(count: published, timeout: 10))
        let kb = subscriber.messages.filter { $0.topic == "sized/kb-1" }
        let lines = subscriber.messages.filter { $0.topic == "sized/line-1" }
        #expect(kb.count >= 10 && lines.count >= 10, "\(kb.count), \(lines.count)")
        var lengths: Set<Int> = []
        for (tick, message) in kb.enumerated() {
            #expect(message.payload.count == 1024)
            // An independent parser: the padding is JSON's own whitespace.
            let object = try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
            let params = try #require(object?["params"] as? [String: Any])
            #expect(params["seq"] as? Int == tick && params["t"] is Double)
            #expect(["on", "a much longer state"].contains(params["state"] as? String ?? ""))
            // The padding stands before the closing braces, "}}".
            lengths.insert(message.payloadText.dropLast(2).trimmingCharacters(in: .whitespaces).count)
        }
        #expect(lengths.count > 1, "the fields' own length varies per tick, the payload's does not")
        for (tick, message) in lines.enumerated() {
            #expect(message.payload.count == 100)
            let text = message.payloadText.trimmingCharacters(in: .whitespaces)
            #expect(text == "seq=\(tick) state=on" || text == "seq=\(tick) state=a much longer state", "\(text)")
        }
        #expect(report["oversized"] as? Int == 0, "\(report)")
        #expect(RunFiles.accountsForEveryTick(report), "\(report)")
    }

    @Test func aRawGroupSendsItsBytesTheSameForTheSameSeed() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "raw.yaml",
            """
            devices:
              - name: pattern
                topic: "raw/{id}"
                publish: 5/s
                payload:
                  style: raw
                  size: 1000
                  fields:
                    blob: { bytes: { content: repeat, pattern: "ab" } }
              - name: noise
                topic: "raw/{id}"
                publish: 5/s
                payload:
                  style: raw
                  fields:
                    blob: { bytes: 64KB }
            """)
        defer { RunFiles.removeFolder(of: file) }
        func run() throws -> (pattern: [[UInt8]], noise: [[UInt8]]) {
            let subscriber = try Subscriber(port: broker.port, topic: "raw/#")
            defer { subscriber.stop() }
            let run = try DevsimRun(file, port: broker.port, ["--duration", "1s", "--seed", "5"], report: true)
            #expect(run.status == 0, "\(run.stderr)")
            let report = try RunFiles.report(file + ".json")
            #expect(subscriber.waitFor(count: report["published"] as? Int ?? 0, timeout: 10))
            return (
                subscriber.messages.filter { $0.topic == "raw/pattern-1" }.map(\.payload),
                subscriber.messages.filter { $0.topic == "raw/noise-1" }.map(\.payload)
            )
        }
        let first = try run()
        let ab = Array(Array(repeating: Array("ab".utf8), count: 500).joined())
        #expect(!first.pattern.isEmpty && first.pattern.allSatisfy { $0 == ab })
        #expect(first.noise.count >= 3 && first.noise.allSatisfy { $0.count == 65_536 })
        #expect(Set(first.noise).count == first.noise.count, "random bytes differ from message to message")
        let second = try run()
        let shared = min(first.noise.count, second.noise.count)
        #expect(shared >= 3 && Array(first.noise.prefix(shared)) == Array(second.noise.prefix(shared)), "the same seed, the same bytes")
    }
}
