import Foundation
import Testing
@testable import Report

/// A report with given figures, decoded the way a reader of `--report` would see it.
func makeReport(_ changes: [String: Any] = [:]) throws -> RunReport {
    func percentiles(_ p50: Double, _ p99: Double, count: Int) -> [String: Any] {
        ["unit": "ms", "count": count, "p50": p50, "p90": p50, "p99": p99, "p999": p99, "max": p99]
    }
    var object: [String: Any] = [
        "scenarios": ["load"], "seed": 42, "outcome": "duration",
        "scheduled": 10_000, "published": 9_712, "acknowledged": 9_700, "inFlight": 12,
        "skippedOffline": 200, "droppedBuffer": 88, "buffered": 0, "failed": 0, "late": 3,
        "reconnects": 1, "connectionsUp": 99, "connections": 100,
        "durationSeconds": 10.0, "ratePerSecond": 971.2,
        "faults": ["spike": 4, "stuck": 0, "dropout": 0, "drift": 0],
        "latency": percentiles(1.5, 3.2, count: 9_700),
        "lateness": percentiles(0.2, 1.008, count: 10_000),
        "groups": [] as [Any], "connectionErrors": [String: Int](),
    ]
    for (key, value) in changes { object[key] = value }
    object = object.filter { !($0.value is NSNull) }
    return try JSONDecoder().decode(RunReport.self, from: JSONSerialization.data(withJSONObject: object))
}

@Suite struct AssertionParsingTests {
    @Test(arguments: [
        ("rate>=99.5%", "rate", Assertion.Comparison.greaterOrEqual, 99.5, "rate>=99.5%"),
        (" rate >= 99.5 % ", "rate", .greaterOrEqual, 99.5, "rate>=99.5%"),
        ("connected==100%", "connected", .equal, 100, "connected==100%"),
        ("p99<50ms", "latency.p99", .less, 50, "p99<50ms"),
        ("latency.p99 < 0.05 s", "latency.p99", .less, 50, "latency.p99<0.05s"),
        ("lateness.p99<2ms", "lateness.p99", .less, 2, "lateness.p99<2ms"),
        ("lateness.p50<=250us", "lateness.p50", .lessOrEqual, 0.25, "lateness.p50<=250us"),
        ("lateness.max<2000µs", "lateness.max", .less, 2, "lateness.max<2000µs"),
        ("p99.9<10ms", "latency.p999", .less, 10, "p99.9<10ms"),
        ("latency.max<1s", "latency.max", .less, 1000, "latency.max<1s"),
        ("published>=1_000_000", "published", .greaterOrEqual, 1_000_000, "published>=1_000_000"),
        ("failed==0", "failed", .equal, 0, "failed==0"),
        ("skippedOffline<=10", "skippedOffline", .lessOrEqual, 10, "skippedOffline<=10"),
        ("reconnects!=3", "reconnects", .notEqual, 3, "reconnects!=3"),
        ("droppedBuffer==0", "droppedBuffer", .equal, 0, "droppedBuffer==0"),
        ("faults.spike>0", "faults.spike", .greater, 0, "faults.spike>0"),
        ("ratePerSecond>=950.5", "ratePerSecond", .greaterOrEqual, 950.5, "ratePerSecond>=950.5"),
        ("lost==0", "lost", .equal, 0, "lost==0"),
        ("verify.lost==0", "lost", .equal, 0, "verify.lost==0"),
        ("outOfOrder==0", "outOfOrder", .equal, 0, "outOfOrder==0"),
        ("duplicated<5", "duplicated", .less, 5, "duplicated<5"),
        ("e2e.p99<20ms", "e2e.p99", .less, 20, "e2e.p99<20ms"),
        ("e2eLatency.p99<20ms", "e2e.p99", .less, 20, "e2eLatency.p99<20ms"),
    ])
    func goodAssertions(text: String, metric: String, comparison: Assertion.Comparison, limit: Double, canonical: String) throws {
        let expectation = try Assertion(text)
        #expect(expectation.metric.name == metric)
        #expect(expectation.comparison == comparison)
        #expect(abs(expectation.limit - limit) < 1e-12, "\(expectation.limit)")
        #expect(expectation.text == canonical)
    }

    @Test(arguments: [
        ("", "empty assertion; expected FIGURE OP VALUE such as rate>=99.5%, p99<50ms or failed==0"),
        ("rate", "no comparison; expected FIGURE OP VALUE such as rate>=99.5%, with OP one of <, <=, >, >=, == or !="),
        ("failed=0", "unknown comparison '='; use == to test equality; expected one of <, <=, >, >=, == or !="),
        ("rate=>99%", "unknown comparison '=>'; did you mean >=?; expected one of <, <=, >, >=, == or !="),
        ("p99<<5ms", "unknown comparison '<<'; expected one of <, <=, >, >=, == or !="),
        (">=5", "no figure before '>='; expected FIGURE OP VALUE such as rate>=99.5%"),
        ("rate>=", "expected a number after '>=', found nothing"),
        ("rate>=high", "expected a number after '>=', found 'high'"),
        ("rate>=-5%", "expected a number after '>=', found '-5%'"),
        ("rate>=.5%", "expected a number after '>=', found '.5%'"),
        ("rate>=5.%", "expected a number after '>=', found '5.%'"),
        ("rate>=1.2.3%", "expected a number after '>=', found '1.2.3%'"),
        ("rate>=99.5", "rate is a percentage; write it with %, such as rate>=99.5%"),
        ("connected==100ms", "connected is a percentage; write it with %, such as connected==99.5%"),
        ("p99<50", "p99 is a duration; give a unit, ms, s or us, such as p99<50ms"),
        ("p99<5%", "p99 is a duration; its unit is ms, s or us, not % (% is for rate, acked, connected and lost)"),
        ("p99<5min", "unknown unit 'min'; expected % (rate, acked, connected, lost), ms, s or us (durations), or none (counts)"),
        ("failed==0%", "failed is a plain number and takes no unit, found '%'"),
        ("published>=10ms", "published is a plain number and takes no unit, found 'ms'"),
    ])
    func badAssertions(text: String, message: String) {
        #expect(throws: AssertionError(message)) { try Assertion(text) }
    }

    @Test func unknownFiguresGetAHintAndTheList() {
        do {
            _ = try Assertion("publshed>=10")
            Issue.record("accepted")
        } catch {
            #expect(
                error.message.hasPrefix("unknown figure 'publshed' (did you mean published?); the figures are rate, acked, connected, "))
            for name in ["skippedOffline", "lost", "outOfOrder", "latency.*", "e2e.*", ".p999"] {
                #expect(error.message.contains(name), "\(name)")
            }
        }
        #expect(throws: AssertionError.self) { try Assertion("latency.p75<5ms") }
        #expect(throws: AssertionError.self) { try Assertion("max<5ms") }
    }

    @Test func listsSplitOnCommasSemicolonsAndLines() throws {
        let list = try Assertion.list("rate>=99%, p99<50ms;failed==0\nlost==0")
        #expect(list.map(\.text) == ["rate>=99%", "p99<50ms", "failed==0", "lost==0"])
        #expect(throws: AssertionError("in 'p99<50': p99 is a duration; give a unit, ms, s or us, such as p99<50ms")) {
            try Assertion.list("rate>=99%,p99<50")
        }
        #expect(throws: AssertionError.self) { try Assertion.list(" , ") }
    }

    @Test func everyMetricHasAUniqueNameAndEveryAliasResolves() {
        #expect(Set(ReportMetrics.all.map(\.name)).count == ReportMetrics.all.count)
        for (alias, target) in ReportMetrics.aliases {
            #expect(ReportMetrics.named(alias)?.name == target, "\(alias)")
        }
    }
}

@Suite struct AssertionEvaluationTests {
    private func verdict(_ text: String, _ report: RunReport) throws -> Verdict {
        try Assertion(text).evaluate(report)
    }

    /// Issue 16, item 3: rate stays at 100 % while a broker saturates; acknowledged over sent and
    /// loss as a share show it.
    @Test func saturationShowsInAckedAndInLossAsAShare() throws {
        // 9,700 acknowledged of 9,712 sent at QoS 1: 99.876 %.
        let report = try makeReport()
        #expect(try verdict("acked>=99.8%", report).passed)
        let short = try verdict("acked>=99.9%", report).message
        #expect(short == "99.876% (0.024 points short)")
        var verified = report
        verified.verify = VerifySummary(received: 9_700, lost: 12, duplicated: 0, outOfOrder: 0, e2eLatency: nil)
        // 12 of 9,712 published: 0.124 %.
        #expect(try verdict("lost<=0.2%", verified).passed)
        let over = try verdict("lost<=0.1%", verified).message
        #expect(over == "0.124% (0.024 points over)")
        #expect(try verdict("lost<=12", verified).passed, "without % it is still the count")
        #expect(throws: AssertionError("failed is a plain number and takes no unit, found '%'")) { try Assertion("failed<=1%") }
    }

    @Test func everyComparisonAtTheLimitAndBesideIt() throws {
        let report = try makeReport(["failed": 10])
        let atLimit: [(String, Bool)] = [("<", false), ("<=", true), (">", false), (">=", true), ("==", true), ("!=", false)]
        for (op, expected) in atLimit {
            #expect(try verdict("failed\(op)10", report).passed == expected, "failed\(op)10")
        }
        let below: [(String, Bool)] = [("<", true), ("<=", true), (">", false), (">=", false), ("==", false), ("!=", true)]
        for (op, expected) in below {
            #expect(try verdict("failed\(op)11", report).passed == expected, "failed\(op)11")
        }
        let above: [(String, Bool)] = [("<", false), ("<=", false), (">", true), (">=", true), ("==", false), ("!=", true)]
        for (op, expected) in above {
            #expect(try verdict("failed\(op)9", report).passed == expected, "failed\(op)9")
        }
    }

    @Test func messagesSayTheValueAndTheMiss() throws {
        let report = try makeReport()
        let cases: [(String, Bool, String)] = [
            ("rate>=99.5%", false, "97.12% (2.38 points short)"),
            ("rate>=98.12%", false, "97.12% (1 point short)"),
            ("rate>=90%", true, "97.12%"),
            ("connected==100%", false, "99% (1 point short)"),
            ("p99<50ms", true, "3.2 ms"),
            ("p99<1ms", false, "3.2 ms (2.2 ms over)"),
            ("p99<=0.001s", false, "0.003 s (0.002 s over)"),
            ("lateness.p99<500us", false, "1008 us (508 us over)"),
            ("lateness.p99>1.008ms", false, "1.008 ms (equal to the limit, must be above)"),
            ("lateness.p99<1.008ms", false, "1.008 ms (equal to the limit, must be below)"),
            ("published>=1000000", false, "9712 (990288 short)"),
            ("published==9000", false, "9712 (712 over)"),
            ("reconnects!=1", false, "1 (equal to the limit)"),
            ("faults.spike>0", true, "4"),
            ("latency.count==9700", true, "9700"),
            ("ratePerSecond>1000", false, "971.2 (28.8 short)"),
        ]
        for (text, passed, message) in cases {
            let result = try verdict(text, report)
            #expect(result.passed == passed, "\(text)")
            #expect(result.message == message, "\(text)")
            #expect(result.assertion == text)
        }
        #expect(try verdict("rate>=99.5%", report).logLine == "expect rate>=99.5%: FAILED, 97.12% (2.38 points short)")
        #expect(try verdict("p99<50ms", report).logLine == "expect p99<50ms: passed, 3.2 ms")
    }

    @Test func exactRatiosAtTheEdge() throws {
        // 199/200 is 99.5% exactly; the ratio is computed so that it compares equal.
        let report = try makeReport(["scheduled": 200, "published": 199, "connections": 3, "connectionsUp": 3])
        #expect(try verdict("rate>=99.5%", report).passed)
        #expect(try verdict("rate==99.5%", report).passed)
        #expect(!(try verdict("rate>99.5%", report).passed))
        #expect(try verdict("connected==100%", report).passed)
        #expect(try verdict("rate>=99.5%", report).actual == 99.5)
    }

    @Test func missingFiguresFailAndSayWhy() throws {
        let plain = try makeReport(["latency": NSNull(), "scheduled": 0, "published": 0, "connections": 0, "connectionsUp": 0])
        let cases: [(String, String)] = [
            ("lost==0", "not available: run with --verify"),
            ("duplicated==0", "not available: run with --verify"),
            ("e2e.p99<5ms", "not available: run with --verify"),
            ("p99<50ms", "not available: nothing was acknowledged (latency is measured for QoS 1 and 2)"),
            ("rate>=99%", "not available: nothing was scheduled"),
            ("connected==100%", "not available: no connections"),
        ]
        for (text, message) in cases {
            let result = try verdict(text, plain)
            #expect(!result.passed, "\(text)")
            #expect(result.actual == nil)
            #expect(result.message == message, "\(text)")
        }
        // Even an assertion that only rules a figure out fails when the figure is not there.
        #expect(!(try verdict("lost!=5", plain).passed))
    }

    @Test func verifyFiguresAreReadFromTheVerifySection() throws {
        var report = try makeReport()
        report.verify = VerifySummary(received: 9_700, lost: 2, duplicated: 0, outOfOrder: 1, e2eLatency: nil)
        #expect(try verdict("lost==0", report).message == "2 (2 over)")
        #expect(try verdict("verify.received>=9700", report).passed)
        #expect(try verdict("outOfOrder<=1", report).passed)
        // Issue 38, item 16: what the broker never acknowledged, judged apart from `lost`.
        report.verify?.unconfirmed = 3
        #expect(try verdict("unconfirmed==0", report).message == "3 (3 over)")
        #expect(try verdict("verify.unconfirmed<=3", report).passed)
        #expect(try verdict("e2e.p99<5ms", report).message == "not available: nothing was received")
        let latency = report.latency
        report.verify?.e2eLatency = latency
        #expect(try verdict("e2e.p99<5ms", report).passed)
        #expect(try verdict("e2e.p99<5ms", report).message == "3.2 ms")
    }

    @Test func theReportCarriesTheVerdictsWithNullForMissingValues() throws {
        var report = try makeReport()
        #expect(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any] != nil)
        let plain = try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
        #expect(plain["expectations"] == nil, "absent unless asked for")
        #expect(plain["verify"] == nil)
        report.expectations = [try verdict("rate>=99.5%", report), try verdict("lost==0", report)]
        let object = try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
        let verdicts = try #require(object["expectations"] as? [[String: Any]])
        #expect(verdicts.count == 2)
        #expect(verdicts[0]["assertion"] as? String == "rate>=99.5%")
        #expect(verdicts[0]["passed"] as? Bool == false)
        #expect(verdicts[0]["actual"] as? Double == 97.12)
        #expect(verdicts[0]["message"] as? String == "97.12% (2.38 points short)")
        #expect(verdicts[1]["actual"] is NSNull)
        #expect(Set(verdicts[1].keys) == ["assertion", "passed", "actual", "message"])
        // And it reads back.
        #expect(try JSONDecoder().decode(RunReport.self, from: report.json()) == report)
    }
}

/// `subscribers[NAME].FIGURE`: a subscriber group's figures, judged on its entry of the report.
@Suite struct SubscriberAssertionTests {
    private static func report(_ figures: [SubscriberFigures]) -> RunReport {
        var report = RunReport.empty(scenarios: ["s"], seed: 1)
        report.subscribers = figures
        return report
    }

    @Test func aGroupsFigureIsReadFromItsEntry() throws {
        var dashboards = SubscriberFigures(name: "dash.boards", shared: false)
        dashboards.received = 1200
        dashboards.gaps = 3
        var latency = Percentiles(Histogram())
        latency.p99 = 12.5
        latency.count = 1200
        dashboards.latency = latency
        let report = Self.report([SubscriberFigures(name: "other", shared: true), dashboards])
        let gaps = try Assertion("subscribers[dash.boards].gaps==0")
        #expect(gaps.subscriberGroup == "dash.boards" && gaps.metric.name == "subscribers[dash.boards].gaps")
        #expect(
            gaps.evaluate(report) == Verdict(assertion: "subscribers[dash.boards].gaps==0", passed: false, actual: 3, message: "3 (3 over)")
        )
        #expect(try Assertion("subscribers[dash.boards].received >= 1_000").evaluate(report).passed)
        let p99 = try Assertion("subscribers[dash.boards].p99<10ms").evaluate(report)
        #expect(!p99.passed && p99.actual == 12.5 && p99.message == "12.5 ms (2.5 ms over)")
        // A group without timestamps has no latency; a group the report lacks, nothing.
        #expect(try Assertion("subscribers[other].latency.p99<10ms").evaluate(report).message.contains("had a timestamp"))
        #expect(
            try Assertion("subscribers[gone].received>0").evaluate(report).message
                == "not available: the run has no subscriber group 'gone'")
    }

    @Test(arguments: [
        ("subscribers[].received>0", "expected subscribers[NAME].FIGURE"),
        ("subscribers[a]received>0", "expected subscribers[NAME].FIGURE"),
        ("subscribers[a].recieved>0", "unknown figure 'recieved' of a subscriber group (did you mean received?)"),
        ("subscribers[a].rate>=99%", "unknown figure 'rate' of a subscriber group"),
        ("stage[1].subscribers[a].received>0", "a subscriber group's figures are the whole run's; leave out 'stage[1].'"),
        ("subscribers[a].p99<10", "is a duration; give a unit"),
    ])
    func badOnesSayWhat(text: String, message: String) {
        #expect(throws: AssertionError.self) { try Assertion(text) }
        do {
            _ = try Assertion(text)
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func anSLOCannotBeASubscribersFigure() {
        #expect {
            try Assertion.slo("subscribers[a].gaps==0")
        } throws: { error in
            "\(error)".contains("subscribers[a].gaps is a figure of the whole run")
        }
    }
}
