import MQTT
import Testing
@testable import Scenario

@Suite struct BrokerURLTests {
    @Test(arguments: [
        ("mqtt://broker.example", BrokerURL(scheme: .mqtt, host: "broker.example", port: 1883, path: nil, username: nil)),
        ("mqtts://broker.example:8884", BrokerURL(scheme: .mqtts, host: "broker.example", port: 8884, path: nil, username: nil)),
        ("MQTT://10.0.0.2:1884/", BrokerURL(scheme: .mqtt, host: "10.0.0.2", port: 1884, path: nil, username: nil)),
        ("ws://127.0.0.1:8080", BrokerURL(scheme: .ws, host: "127.0.0.1", port: 8080, path: "/mqtt", username: nil)),
        ("ws://broker/", BrokerURL(scheme: .ws, host: "broker", port: 80, path: "/", username: nil)),
        ("wss://b.example/ws/mqtt", BrokerURL(scheme: .wss, host: "b.example", port: 443, path: "/ws/mqtt", username: nil)),
        ("wss://[::1]:8443/mqtt", BrokerURL(scheme: .wss, host: "::1", port: 8443, path: "/mqtt", username: nil)),
        ("mqtt://meter%401@broker:1883", BrokerURL(scheme: .mqtt, host: "broker", port: 1883, path: nil, username: "meter@1")),
    ])
    func urlsAreRead(text: String, url: BrokerURL) throws {
        #expect(try BrokerURL.parse(text) == url)
    }

    @Test func transportAndTLSFollowTheScheme() {
        #expect(BrokerURL.Scheme.allCases.map(\.transport) == [.tcp, .tcp, .websockets, .websockets])
        #expect(BrokerURL.Scheme.allCases.map(\.isSecure) == [false, true, false, true])
    }

    @Test(arguments: [
        ("broker.example:1883", "'broker.example:1883' is not a URL: write mqtt://HOST:PORT, mqtts://…, ws://HOST:PORT/PATH or wss://…"),
        ("tcp://broker", "unknown scheme 'tcp' in 'tcp://broker': expected mqtt, mqtts, ws or wss; did you mean mqtt://?"),
        ("https://broker", "unknown scheme 'https' in 'https://broker': expected mqtt, mqtts, ws or wss; did you mean wss://?"),
        (
            "ws://u:pw@broker/mqtt",
            "'ws://u:***@broker/mqtt' holds a password, which would show in ps and in logs: give it with --password-file, DEVSIM_PASSWORD or broker.password"
        ),
        ("mqtt://broker:0", "'mqtt://broker:0': expected a port from 1 to 65535 after ':', found '0'"),
        ("mqtt://broker:http", "'mqtt://broker:http': expected a port from 1 to 65535 after ':', found 'http'"),
        ("mqtt://broker/x", "'mqtt://broker/x' has a path ('/x'), which only ws:// and wss:// URLs take"),
        ("ws://broker/mqtt?token=1", "'ws://broker/mqtt?token=1' has a query or fragment ('?token=1'), which a broker URL cannot use"),
        ("ws://:8080/mqtt", "'ws://:8080/mqtt' names no host"),
        ("ws://@broker", "'ws://@broker' has an empty user name before '@'"),
    ])
    func badURLsSayWhy(text: String, message: String) {
        #expect(throws: BrokerURLError(message)) { try BrokerURL.parse(text) }
    }
}

/// `broker.url`, `transport` and `path` in a scenario file.
@Suite struct BrokerTransportLoadingTests {
    @Test func aURLGivesHostPortTransportPathUserAndTLS() throws {
        let broker = try load("broker: { url: \"wss://meter@broker.example/ws\" }\n" + minimalDevices).broker
        #expect(broker.host == "broker.example" && broker.port == 443 && broker.username == "meter")
        #expect(broker.transport == .websockets && broker.path == "/ws")
        #expect(broker.tls == TLSSettings(), "wss:// is TLS, with the system's store unless tls says otherwise")
        let withCA = try load("broker: { url: \"mqtts://b:8884\", tls: { ca: ca.pem } }\n" + minimalDevices, file: "/etc/d/s.yaml").broker
        #expect(withCA.tls?.ca == "/etc/d/ca.pem" && withCA.transport == .tcp && withCA.path == nil)
    }

    @Test func transportAndPathAlone() throws {
        let broker = try load("broker: { host: b, port: 8080, transport: websockets, path: /mqtt }\n" + minimalDevices).broker
        #expect(broker.transport == .websockets && broker.path == "/mqtt" && broker.port == 8080)
    }

    @Test func mistakesNameTheirPlace() {
        #expect(
            problems("broker: { url: \"ws://b/mqtt\", host: c }\n" + minimalDevices) == [
                "test.yaml:1:16: 'url' gives the host, port, transport and path: leave out 'host', or 'url'"
            ])
        #expect(
            problems("broker: { url: \"ws://b/mqtt\", tls: { insecure: true } }\n" + minimalDevices) == [
                "test.yaml:1:36: 'tls' with a ws:// URL, which has no TLS: use wss://"
            ])
        #expect(
            problems("broker: { url: \"ws://a:pw@b/mqtt\" }\n" + minimalDevices) == [
                "test.yaml:1:16: expected a broker URL for 'url': 'ws://a:***@b/mqtt' holds a password, which would show in ps and in logs: "
                    + "give it with --password-file, DEVSIM_PASSWORD or broker.password"
            ])
        #expect(
            problems("broker: { transport: websocket }\n" + minimalDevices) == [
                "test.yaml:1:22: expected tcp or websockets for 'transport', found 'websocket'; did you mean 'websockets'?"
            ])
        #expect(
            problems("broker: { path: /mqtt }\n" + minimalDevices) == [
                "test.yaml:1:17: 'path' is the WebSocket's path: give 'transport: websockets' too"
            ])
        #expect(
            problems("broker: { transport: websockets, path: mqtt }\n" + minimalDevices) == [
                "test.yaml:1:40: expected a path beginning with '/' for 'path', found 'mqtt'"
            ])
    }
}
