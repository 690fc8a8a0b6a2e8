/// The run report as JUnit XML (`--report-format junit`), so CI systems show the verdict natively:
///
/// ```xml
/// <testsuite name="devsim" tests="2" failures="1" errors="0" skipped="0" time="30.001">
///   <properties><property name="published" value="2990"/>…</properties>
///   <testcase name="rate&gt;=99.5%" classname="devsim.expect" time="0">
///     <failure message="97.12% (2.38 points short)" type="expectation">…</failure>
///   </testcase>
///   <testcase name="p99&lt;50ms" classname="devsim.expect" time="0"/>
///   <system-out>the JSON report</system-out>
/// </testsuite>
/// ```
///
/// One test case per `--expect` assertion. With no assertions, or when the run failed in
/// another way (no connection: exit 3), one more test case for the run itself, failing unless
/// it exited 0.
public enum JUnitReport {
    public static func xml(_ report: RunReport, exitCode: Int32, json: String? = nil) -> String {
        var cases: [String] = []
        var failures = 0
        for result in report.expectations ?? [] {
            var testcase = "  <testcase name=\"\(escaped(result.assertion))\" classname=\"devsim.expect\" time=\"0\""
            if result.passed {
                testcase += "/>"
            } else {
                failures += 1
                testcase +=
                    ">\n    <failure message=\"\(escaped(result.message))\" type=\"expectation\">"
                    + escaped(result.logLine) + "</failure>\n  </testcase>"
            }
            cases.append(testcase)
        }
        let expectationsBrokeIt = exitCode == 4 && !(report.expectations ?? []).isEmpty
        if (report.expectations ?? []).isEmpty || (exitCode != 0 && !expectationsBrokeIt) {
            let name = "run " + report.scenarios.joined(separator: ", ")
            var testcase = "  <testcase name=\"\(escaped(name))\" classname=\"devsim.run\" time=\"\(seconds(report.durationSeconds))\""
            if exitCode == 0 {
                testcase += "/>"
            } else {
                failures += 1
                let message = "exited \(exitCode): \(report.outcome)"
                testcase +=
                    ">\n    <failure message=\"\(escaped(message))\" type=\"exit\">"
                    + escaped(message) + "</failure>\n  </testcase>"
            }
            cases.append(testcase)
        }

        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuite name=\"devsim\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\" "
            + "time=\"\(seconds(report.durationSeconds))\">\n"
        xml += "  <properties>\n"
        for (name, value) in properties(report, exitCode: exitCode) {
            xml += "    <property name=\"\(escaped(name))\" value=\"\(escaped(value))\"/>\n"
        }
        xml += "  </properties>\n"
        xml += cases.joined(separator: "\n") + "\n"
        if let json {
            xml += "  <system-out>" + escaped(json, attribute: false) + "</system-out>\n"
        }
        xml += "</testsuite>\n"
        return xml
    }

    /// What ran and every figure the report has, durations in milliseconds.
    static func properties(_ report: RunReport, exitCode: Int32) -> [(String, String)] {
        var properties = [
            ("scenarios", report.scenarios.joined(separator: ",")), ("seed", String(report.seed)),
            ("outcome", report.outcome), ("exitCode", String(exitCode)),
        ]
        for metric in ReportMetrics.all {
            guard let value = metric.value(report), value.isFinite else { continue }
            let unit = metric.kind == .percentage ? "%" : metric.kind == .duration ? " ms" : ""
            properties.append((metric.name, Assertion.number(value) + unit))
        }
        return properties
    }

    private static func seconds(_ value: Double) -> String {
        value.isFinite ? Assertion.number(max(0, value)) : "0"
    }

    /// `text` made safe for XML 1.0 attribute values (or, with `attribute: false`, character
    /// data): markup characters as entities, carriage returns (and in attributes line feeds and
    /// tabs) as character references so parsers keep them, and characters XML cannot hold at all
    /// (other control characters, U+FFFE, U+FFFF) as U+FFFD.
    package static func escaped(_ text: String, attribute: Bool = true) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where attribute: result += "&quot;"
            case "'" where attribute: result += "&apos;"
            case "\n" where attribute: result += "&#10;"
            case "\t" where attribute: result += "&#9;"
            case "\r": result += "&#13;"
            case "\"", "'", "\n", "\t": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result.unicodeScalars.append("\u{FFFD}")
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
