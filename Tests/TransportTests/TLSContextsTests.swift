import Foundation
import MQTT
import Testing
import TestSupport
@testable import Transport

/// A context is shared while its files stay as they are, and made anew once one is replaced at
/// its path (a renewed CA before a reload): the review of issue 24 found the old one kept.
@Suite(.tags(.integration), .notUnitOnly) struct TLSContextsTests {
    @Test func aFileReplacedAtItsPathMakesANewContext() throws {
        let first = try TestCertificates(host: "localhost")
        defer { first.remove() }
        let second = try TestCertificates(host: "localhost")
        defer { second.remove() }
        let path = first.directory + "/current-ca.pem"
        try FileManager.default.copyItem(atPath: first.ca, toPath: path)
        let settings = TLSSettings(ca: path)
        let before = try TLSContexts.context(for: settings, host: "localhost")
        #expect(try TLSContexts.context(for: settings, host: "localhost") == before, "shared while the file is as it was")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: second.ca, toPath: path)
        #expect(try TLSContexts.context(for: settings, host: "localhost") != before)
    }
}
