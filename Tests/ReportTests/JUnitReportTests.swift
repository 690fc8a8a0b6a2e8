import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import Testing
@testable import Report

@Suite struct JUnitReportTests {
    private func parse(_ xml: String) throws -> XMLElement {
        let document = try XMLDocument(data: Data(xml.utf8), options: [])
        return try #require(document.rootElement())
    }

    private func attribute(_ element: XMLElement, _ name: String) -> String? {
        element.attribute(forName: name)?.stringValue
    }

    @Test func oneTestCasePerAssertionWithTheRightCounts() throws {
        var report = try makeReport()
        report.expectations = try ["rate>=99.5%", "p99<50ms", "lost==0", "failed==0"].map { try Assertion($0).evaluate(report) }
        let xml = JUnitReport.xml(report, exitCode: 4, json: String(decoding: try report.json(), as: UTF8.self))
        let suite = try parse(xml)
        #expect(suite.name == "testsuite")
        #expect(attribute(suite, "name") == "devsim")
        #expect(attribute(suite, "tests") == "4")
        #expect(attribute(suite, "failures") == "2")
        #expect(attribute(suite, "errors") == "0")
        let cases = suite.elements(forName: "testcase")
        #expect(cases.map { attribute($0, "name") } == ["rate>=99.5%", "p99<50ms", "lost==0", "failed==0"])
        #expect(cases.allSatisfy { attribute($0, "classname") == "devsim.expect" })
        let failures = cases.map { $0.elements(forName: "failure").first }
        #expect(failures.map { $0 != nil } == [true, false, true, false])
        #expect(failures[0].flatMap { attribute($0, "message") } == "97.12% (2.38 points short)")
        #expect(failures[2].flatMap { attribute($0, "message") } == "not available: run with --verify")
        #expect(failures[0]?.stringValue == "expect rate>=99.5%: FAILED, 97.12% (2.38 points short)")

        let properties = try #require(suite.elements(forName: "properties").first).elements(forName: "property")
        let values = Dictionary(
            properties.compactMap { p in attribute(p, "name").map { ($0, attribute(p, "value") ?? "") } },
            uniquingKeysWith: { a, _ in a })
        #expect(values["published"] == "9712")
        #expect(values["rate"] == "97.12%")
        #expect(values["latency.p99"] == "3.2 ms")
        #expect(values["exitCode"] == "4")
        #expect(values["lost"] == nil, "no verify section, no verify figures")

        let out = try #require(suite.elements(forName: "system-out").first?.stringValue)
        #expect(try JSONDecoder().decode(RunReport.self, from: Data(out.utf8)) == report, "the JSON report survives the XML")
    }

    @Test func withoutAssertionsTheRunItselfIsTheTestCase() throws {
        let report = try makeReport()
        let passed = try parse(JUnitReport.xml(report, exitCode: 0))
        #expect(attribute(passed, "tests") == "1")
        #expect(attribute(passed, "failures") == "0")
        let only = try #require(passed.elements(forName: "testcase").first)
        #expect(attribute(only, "name") == "run load")
        #expect(attribute(only, "time") == "10")
        #expect(only.elements(forName: "failure").isEmpty)

        var lost = try makeReport(["outcome": "no connection: connection refused"])
        lost.expectations = [try Assertion("failed==0").evaluate(lost)]
        let failed = try parse(JUnitReport.xml(lost, exitCode: 3))
        #expect(attribute(failed, "tests") == "2", "the assertions, and the run that failed otherwise")
        #expect(attribute(failed, "failures") == "1")
        let run = try #require(failed.elements(forName: "testcase").last)
        #expect(
            run.elements(forName: "failure").first.flatMap { attribute($0, "message") } == "exited 3: no connection: connection refused")
    }

    @Test func everythingIsEscaped() throws {
        let nasty = "a<b>&\"c\" 'd' ]]> \u{1}\u{7}\t\r\né ✓ \u{FFFE}"
        var report = try makeReport(["scenarios": [nasty], "outcome": nasty])
        report.expectations = [Verdict(assertion: nasty, passed: false, actual: nil, message: nasty)]
        let xml = JUnitReport.xml(report, exitCode: 1, json: nasty)
        let suite = try parse(xml)
        let cases = suite.elements(forName: "testcase")
        #expect(cases.count == 2)
        let clean = "a<b>&\"c\" 'd' ]]> \u{FFFD}\u{FFFD}\t\r\né ✓ \u{FFFD}"
        #expect(attribute(cases[0], "name") == clean)
        #expect(cases[0].elements(forName: "failure").first.flatMap { attribute($0, "message") } == clean)
        #expect(attribute(cases[1], "name") == "run " + clean)
        #expect(suite.elements(forName: "system-out").first?.stringValue == clean)

        // XMLParser agrees that it is well-formed.
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
    }

    @Test func escapingKeepsPlainTextAndReplacesWhatXMLCannotHold() {
        #expect(JUnitReport.escaped("p99<50ms & rate>=99%") == "p99&lt;50ms &amp; rate&gt;=99%")
        #expect(JUnitReport.escaped("\"'\n\t") == "&quot;&apos;&#10;&#9;")
        #expect(JUnitReport.escaped("\"'\n\t\r", attribute: false) == "\"'\n\t&#13;")
        #expect(JUnitReport.escaped("\u{0}\u{1F}\u{FFFF}") == "\u{FFFD}\u{FFFD}\u{FFFD}")
    }
}
