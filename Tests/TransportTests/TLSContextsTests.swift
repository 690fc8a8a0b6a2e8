import COpenSSL
import Foundation
import MQTT
import Testing
import TestSupport
@testable import Transport

/// Serialized: the cache is the process's, and one test's `release` would take another's
/// contexts from under it (found by review).
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct TLSContextsTests {
    /// A context is shared while its files stay as they are, and made anew once one is replaced
    /// at its path (a renewed CA before a reload): the review of issue 24 found the old one kept.
    @Test func aFileReplacedAtItsPathMakesANewContext() throws {
        let first = try TestCertificates(host: "localhost")
        defer { first.remove() }
        let second = try TestCertificates(host: "localhost")
        defer { second.remove() }
        let path = first.directory + "/current-ca.pem"
        try FileManager.default.copyItem(atPath: first.ca, toPath: path)
        let settings = TLSSettings(ca: path)
        let before = try TLSContexts.context(for: settings, host: "localhost")
        #expect(try TLSContexts.context(for: settings, host: "localhost").pointer == before.pointer, "shared while the file is as it was")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: second.ca, toPath: path)
        #expect(try TLSContexts.context(for: settings, host: "localhost").pointer != before.pointer)
    }

    /// Issue 27: contexts that trust one source share its store (`SSL_CTX_set1_cert_store`),
    /// loaded once: the system's is ~790 KB, once per context before.
    @Test func contextsThatTrustOneSourceShareItsStore() throws {
        let certificates = try TestCertificates(host: "localhost")
        defer { certificates.remove() }
        try certificates.makeClientCertificate()
        let withIdentity = TLSSettings(
            ca: certificates.ca, certificate: certificates.directory + "/client.pem", key: certificates.directory + "/client.key")
        let a = try TLSContexts.context(for: withIdentity, host: "localhost")
        let b = try TLSContexts.context(for: TLSSettings(ca: certificates.ca), host: "127.0.0.1")
        #expect(a.pointer != b.pointer)
        #expect(SSL_CTX_get_cert_store(a.pointer) == SSL_CTX_get_cert_store(b.pointer))
        let system = try TLSContexts.context(for: TLSSettings(), host: "localhost")
        let insecure = try TLSContexts.context(for: TLSSettings(insecure: true), host: "localhost")
        #expect(SSL_CTX_get_cert_store(system.pointer) == SSL_CTX_get_cert_store(insecure.pointer))
        #expect(SSL_CTX_get_cert_store(system.pointer) != SSL_CTX_get_cert_store(a.pointer))
    }

    /// A reload lets go of the contexts its plan no longer uses; whoever holds one keeps it
    /// usable (libmosquitto and the bridge's `SSL` take references of their own).
    @Test func releaseLetsGoOfContextsNotInUseAndHoldersKeepTheirs() throws {
        let certificates = try TestCertificates(host: "localhost")
        defer { certificates.remove() }
        let gone = TLSSettings(ca: certificates.ca, alpn: ["gone"])
        let kept = TLSSettings(ca: certificates.ca, alpn: ["kept"])
        let held = try TLSContexts.context(for: gone, host: "localhost")
        let keptBefore = try TLSContexts.context(for: kept, host: "localhost").pointer
        #expect(TLSContexts.release(allBut: [kept]) >= 1)
        // Still the holder's: an `SSL` made from it, as the bridge makes one.
        let ssl = try #require(SSL_new(held.pointer))
        SSL_free(ssl)
        #expect(try TLSContexts.context(for: gone, host: "localhost").pointer != held.pointer, "made anew")
        #expect(try TLSContexts.context(for: kept, host: "localhost").pointer == keptBefore, "kept")
    }

    /// `prepare` makes every context ahead of the ramp and names each that cannot be made.
    @Test func prepareMakesThemAheadAndNamesEachFailure() throws {
        let certificates = try TestCertificates(host: "localhost")
        defer { certificates.remove() }
        let good = (1...8).map { TLSSettings(ca: certificates.ca, alpn: ["p\($0)"]) }
        let missing = TLSSettings(ca: certificates.directory + "/missing.pem")
        let failures = TLSContexts.prepare(good + [missing, missing], host: "localhost")
        #expect(failures.count == 1)
        #expect(failures[missing]?.message.hasPrefix("cannot read the CA file '\(certificates.directory)/missing.pem'") == true)
        #expect(good.allSatisfy { TLSContexts.isMade($0, host: "localhost") })
    }
}
