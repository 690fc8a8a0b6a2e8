import Testing
import Scenario

@Suite struct InterpolationTests {
    let environment = ["HOST": "broker.local", "EMPTY": "", "PORT": "8883"]

    @Test(arguments: [
        ("${HOST}", "broker.local"),
        ("mqtt://${HOST}:${PORT}", "mqtt://broker.local:8883"),
        ("${MISSING:-demo}/push", "demo/push"),
        ("${HOST:-demo}", "broker.local"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${EMPTY}", ""),
        ("${MISSING:-}", ""),
        ("cost $5", "cost $5"),
        ("$$", "$$"),
        ("$${HOST}", "$${HOST}"),
        ("trailing $", "trailing $"),
        ("no dollars", "no dollars"),
    ])
    func expands(text: String, expected: String) throws {
        #expect(try Interpolation.expand(text, environment: environment) == expected)
    }

    @Test(arguments: ["${MISSING}", "${HOST", "${}", "${1X}", "${A B}"])
    func fails(text: String) {
        #expect(throws: Interpolation.Failure.self) { try Interpolation.expand(text, environment: environment) }
    }

    @Test func unsetVariableIsNamed() {
        #expect(throws: Interpolation.Failure(message: "environment variable 'APP_ID' is not set; set it or write ${APP_ID:-default}")) {
            try Interpolation.expand("${APP_ID}/push", environment: [:])
        }
    }
}
