import Foundation
import Report
import Simulator
import Testing

/// The one list of counted figures (`Figure`) against what it drives and what people read.
@Suite struct FigureTests {
    /// Every figure set to a value of its own: 1, 2, 3 … in case order.
    private static func distinctFigures() -> Figures {
        var figures = Figures()
        for (index, figure) in Figure.allCases.enumerated() { figures[figure] = index + 1 }
        return figures
    }

    private static func report() -> RunReport {
        var report = RunReport.empty(scenarios: ["plant.yaml"], seed: 7)
        report.figures = distinctFigures()
        var group = Figures()
        group[.published] = 5
        report.groups = [GroupFigures(name: "sensors", figures: group)]
        return report
    }

    /// The report's keys are a public contract: renaming a case must fail here.
    @Test func theReportKeepsItsKeysAtTheTopLevelAndInEachGroup() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: try Self.report().json()) as? [String: Any])
        let figureKeys = [
            "scheduled", "published", "acknowledged", "refused", "inFlight", "skippedOffline", "buffered",
            "droppedBuffer", "failed", "late", "reconnects", "ackTimeouts", "paused", "unchanged", "stateMessages",
            "tokenRenewals", "aliasBytesSaved", "oversized", "unmatched", "scriptErrors",
        ]
        for (index, key) in figureKeys.enumerated() {
            #expect(object[key] as? Int == index + 1, "\(key)")
        }
        #expect(Set(Figure.allCases.map(\.stringValue)) == Set(figureKeys))
        #expect(object["figures"] == nil && object["details"] == nil, "figures and details share the top level")
        let group = try #require((object["groups"] as? [[String: Any]])?.first)
        #expect(Set(group.keys) == Set(figureKeys + ["name"]))
        #expect(group["name"] as? String == "sensors" && group["published"] as? Int == 5)
    }

    @Test func aReportReadBackIsTheReportWritten() throws {
        let report = Self.report()
        #expect(try JSONDecoder().decode(RunReport.self, from: try report.json()) == report)
    }

    /// Issue 16, item 3: the shares that show saturation are in the report, not only in
    /// `--expect`, and made from its figures.
    @Test func theReportGivesTheAcknowledgedAndLostShares() throws {
        var report = Self.report()
        report[.published] = 200
        report[.acknowledged] = 150
        report[.refused] = 0
        report[.inFlight] = 50
        let object = { (report: RunReport) in try #require(try JSONSerialization.jsonObject(with: try report.json()) as? [String: Any]) }
        #expect(try object(report)["ackedPercent"] as? Double == 75)
        // Issue 24, item 6: a refusal is answered, and not acknowledged.
        report[.refused] = 50
        report[.inFlight] = 0
        #expect(try object(report)["ackedPercent"] as? Double == 75)
        #expect(try object(report)["lostPercent"] == nil, "no --verify, no lost share")
        report.verify = VerifySummary(received: 199, lost: 1, duplicated: 0, outOfOrder: 0)
        #expect(try object(report)["lostPercent"] as? Double == 0.5)
        report[.acknowledged] = 0
        report[.refused] = 0
        #expect(try object(report)["ackedPercent"] == nil, "no QoS 1/2 message, no share")
    }

    @Test func aReportOfAnOlderDevsimHasNoAckTimeoutsAndIsRead() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: try Self.report().json()) as? [String: Any])
        object["ackTimeouts"] = nil
        object["refused"] = nil
        let report = try JSONDecoder().decode(RunReport.self, from: try JSONSerialization.data(withJSONObject: object))
        #expect(report[.ackTimeouts] == 0 && report[.refused] == 0 && report[.late] == Self.report()[.late])
    }

    @Test func aReportWithoutAFigureIsRefusedNamingIt() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: try Self.report().json()) as? [String: Any])
        object["late"] = nil
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect {
            try JSONDecoder().decode(RunReport.self, from: data)
        } throws: { error in
            "\(error)".contains("late")
        }
    }

    /// `report merge` names where a report is wrong by the coding path: a figure is a name
    /// there, never its number.
    @Test func aFigureOfTheWrongTypeIsNamedByItsKey() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: try Self.report().json()) as? [String: Any])
        object["published"] = "x"
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try JSONDecoder().decode(RunReport.self, from: data)
            Issue.record("a report with a text for a figure decoded")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.last?.stringValue == "published")
            #expect(context.codingPath.last?.intValue == nil)
        }
    }

    @Test func figuresAddUpFigureByFigure() {
        let sum = Self.distinctFigures() + Self.distinctFigures()
        for (index, figure) in Figure.allCases.enumerated() { #expect(sum[figure] == 2 * (index + 1)) }
    }

    @Test func theFinishedLineNamesEveryFigureInOrder() {
        #expect(
            Figure.line(Self.distinctFigures()) == "scheduled 1, published 2, acknowledged 3, refused 4, in flight 5, "
                + "skipped offline 6, buffered 7, dropped 8, failed 9, late 10, reconnects 11, ack timeouts 12, paused 13, unchanged 14, "
                + "state messages 15, token renewals 16, alias bytes saved 17, oversized 18, unmatched 19, script errors 20")
    }

    @Test func everyCounterOfALoopIsReadBack() {
        let counters = Counters()
        for (index, figure) in Figure.allCases.enumerated() { counters.add(figure, index + 1) }
        counters.add(.inFlight, -5)
        var expected = Self.distinctFigures()
        expected[.inFlight] = 0
        #expect(counters.values == expected)
        #expect(Totals([counters, counters]).figures == expected + expected)
    }

    /// Adding a figure is a case and its documentation: the README's report table must name it.
    @Test func everyFigureHasARowInTheReadmesReportTable() throws {
        let readme = try String(contentsOf: GoldenPayloadTests.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "### The report").dropFirst().first)
        let table = section.components(separatedBy: "\n\n").first { $0.contains("| field | meaning |") } ?? ""
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| `") }
        for figure in Figure.allCases {
            #expect(
                rows.contains { $0.split(separator: "|").first?.contains("`\(figure.stringValue)`") == true },
                "README's report table has no row for \(figure.stringValue)")
        }
    }
}
