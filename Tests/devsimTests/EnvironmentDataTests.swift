import Foundation
import Testing
import TestSupport

/// Issue 38, item 8: a value given by the environment (`${PW}`) is data, not a template: a
/// password `Tr0ub{id}` was sent as `Tr0ubd-1` and refused, and `p{w}d` was refused at load as
/// an unknown placeholder. Against mosquitto, which knows the passwords as they are, and a
/// subscriber on the topic the environment names.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct EnvironmentDataTests {
    @Test(arguments: ["Tr0ub{id}", "p{w}d"]) func aPasswordAndATopicFromTheEnvironmentAreSentAsTheyAre(password: String) throws {
        let broker = try MosquittoBroker(users: ["meter": password], allowAnonymous: false)
        let subscriber = try Subscriber(broker: broker, topic: "site{index}/#", username: "meter", password: password)
        let file = try RunFiles.scenario(
            "env.yaml",
            """
            broker:
              username: meter
              password: ${PW}
            devices:
              - name: d
                topic: "${SITE}/{id}"
                publish: 10/s
                qos: 1
                payload: { fields: { n: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: broker.port, ["--messages", "5"], environment: ["PW": password, "SITE": "site{index}"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(subscriber.waitFor(count: 5, timeout: 10), "\(subscriber.messages)")
        #expect(Set(subscriber.messages.map(\.topic)) == ["site{index}/d-1"], "\(subscriber.messages.map(\.topic))")
    }
}
