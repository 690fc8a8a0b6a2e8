import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 27: `tls.alpn` goes into the ClientHello of libmosquitto's connection (AWS IoT Core
/// takes MQTT with a client certificate on port 443 only with `x-amzn-mqtt-ca`), and the SNI
/// is the host. libmosquitto's own `MOSQ_OPT_TLS_ALPN` is ignored with a context of devsim's,
/// so this is checked by a server that shows what arrived: `openssl s_server -tlsextdebug`,
/// which dumps each extension of the ClientHello, read here byte by byte.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct ALPNTests {
    /// The extensions of the first ClientHello devsim sends to `localhost`, by name as
    /// s_server prints them, with `alpn` in the scenario's `tls` mapping (or none).
    private func clientHelloExtensions(alpn: String?, webSocket: Bool = false) throws -> [String: [UInt8]] {
        let certificates = try TestCertificates(host: "localhost")
        defer { certificates.remove() }
        let port = try Loopback.freePort()
        // -oL: s_server writes through stdio, whose buffer a pipe would hold to the end.
        let server = try ChildProcess(
            executable: "stdbuf",
            arguments: [
                "-oL", "openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificates.certificate, "-key",
                certificates.key, "-alpn", "x-amzn-mqtt-ca", "-tlsextdebug", "-www",
            ])
        defer { _ = server.terminate(grace: 1) }
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { server.stdoutText.contains("ACCEPT") }, "\(server.stderrText)")
        let file = try RunFiles.scenario(
            "alpn.yaml",
            """
            broker:
              \(webSocket ? "url: wss://localhost:\(port)/mqtt" : "host: localhost\n  port: \(port)")
              tls: { ca: \(certificates.ca)\(alpn.map { ", alpn: [\($0)]" } ?? "") }
            devices:
              - name: d
                topic: t
                publish: 1/s
                payload: { fields: { n: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        // s_server answers no MQTT: devsim gives up at its connect timeout, every ClientHello sent.
        let devsim = try DevsimRun.start(file, ["--connect-timeout", "1s"])
        #expect(devsim.waitUntilExit(timeout: 20) == 3, "\(devsim.stderr)")
        _ = server.terminate(grace: 1)
        return Self.extensions(in: server.stdoutText)
    }

    @Test func theALPNAskedForIsOfferedAndTheSNIIsTheHost() throws {
        let extensions = try clientHelloExtensions(alpn: "x-amzn-mqtt-ca")
        // RFC 7301: a 2-byte list length, then each name after its length byte.
        let alpn = try #require(extensions["application layer protocol negotiation"], "\(extensions.keys)")
        #expect(alpn == [0, 15, 14] + Array("x-amzn-mqtt-ca".utf8))
        // RFC 6066: a 2-byte list length, a host_name entry (type 0) with a 2-byte length.
        let sni = try #require(extensions["server name"], "\(extensions.keys)")
        #expect(sni == [0, 12, 0, 0, 9] + Array("localhost".utf8))
    }

    @Test func withoutALPNTheClientHelloHasNone() throws {
        let extensions = try clientHelloExtensions(alpn: nil)
        #expect(extensions["server name"] != nil, "\(extensions.keys)")
        #expect(extensions["application layer protocol negotiation"] == nil)
    }

    /// The WebSocket bridge's TLS is made from the same context: over wss:// the ALPN asked
    /// for is offered too (AWS IoT Core over WSS wants none: leave `alpn` out there).
    @Test func overWSSTheBridgeOffersItToo() throws {
        let extensions = try clientHelloExtensions(alpn: "http/1.1", webSocket: true)
        #expect(extensions["application layer protocol negotiation"] == [0, 9, 8] + Array("http/1.1".utf8), "\(extensions.keys)")
        #expect(extensions["server name"] == [0, 12, 0, 0, 9] + Array("localhost".utf8))
    }

    /// mosquitto speaks no ALPN: the run goes on, and says once, not once per device, that the
    /// broker chose none of the protocols offered.
    @Test func aBrokerThatChoosesNoneIsSaidOnce() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try MosquittoBroker(extraConfig: certificates.listenerConfig)
        let file = try RunFiles.scenario(
            "alpn.yaml",
            """
            broker:
              tls: { ca: \(certificates.ca), alpn: x-amzn-mqtt-ca }
            devices:
              - name: d
                count: 3
                topic: "t/{index}"
                publish: 1/s
                payload: { fields: { n: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--duration", "1s"])
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.components(separatedBy: "the broker chose none of the ALPN protocols offered (tls.alpn: x-amzn-mqtt-ca)")
        #expect(warnings.count == 2, "\(run.stderr)")
    }

    /// The first ClientHello's extensions in s_server's `-tlsextdebug` output:
    /// `TLS client extension "NAME" (id=N), len=L`, then lines `0000 - 00 0f 0e 78 …-… ASCII`.
    static func extensions(in output: String) -> [String: [UInt8]] {
        var extensions: [String: [UInt8]] = [:]
        var current: String?
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("TLS client extension \"") {
                let name = String(line.dropFirst("TLS client extension \"".count).prefix { $0 != "\"" })
                // The first ClientHello's only: a reconnection's repeats them.
                if extensions[name] != nil { return extensions }
                current = name
                extensions[name] = []
            } else if let name = current, line.count > 7, line.prefix(4).allSatisfy(\.isHexDigit), line.dropFirst(4).hasPrefix(" - ") {
                let hex = line.dropFirst(7).components(separatedBy: "   ")[0].replacingOccurrences(of: "-", with: " ")
                extensions[name, default: []] += hex.split(separator: " ").compactMap { UInt8($0, radix: 16) }
            } else {
                current = nil
            }
        }
        return extensions
    }
}
