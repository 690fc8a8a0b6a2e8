// The cost of a TLS context per device identity (issue 27): milliseconds and resident KB per
// context, for COUNT distinct certificate/key pairs made by scripts/make-device-certs.sh in DIR,
// or for one pair shared. One mode per process, so that each starts from the same RSS:
//
//   TLSContextBenchmark DIR COUNT MODE
//
// MODE: old-ca, old-system (each context with a store of its own, loaded from DIR/ca.pem or the
// system's, as TLSContexts made them before issue 27: the same OpenSSL calls, copied here);
// new-ca, new-system (TLSContexts.context, the trust store shared); prepare (TLSContexts.prepare,
// CA file); shared (COUNT look-ups of one identity).
// scripts/bench.sh tls-contexts runs each.
import COpenSSL
import Foundation
import Glibc
import MQTT
import Transport

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), count > 0 else {
    print("usage: TLSContextBenchmark DIR COUNT old-ca|old-system|new-ca|new-system|prepare|shared")
    exit(2)
}
let directory = arguments[1]
let mode = arguments[3]
let ca = directory + "/ca.pem"
let host = "localhost"

func identity(_ index: Int, trust: String?) -> TLSSettings {
    TLSSettings(ca: trust, certificate: directory + "/thing-\(index).pem", key: directory + "/thing-\(index).key")
}

/// Resident memory, from `/proc/self/statm`'s second field (pages).
func residentKB() -> Double {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
    let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return Double(pages * sysconf(Int32(_SC_PAGESIZE))) / 1024
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// As `TLSContexts.make` was before issue 27: a store per context, loaded into it.
func oldContext(_ settings: TLSSettings) -> OpaquePointer {
    let context = SSL_CTX_new(TLS_client_method())!
    if let ca = settings.ca {
        precondition(SSL_CTX_load_verify_locations(context, ca, nil) == 1)
    } else {
        precondition(SSL_CTX_set_default_verify_paths(context) == 1)
    }
    precondition(SSL_CTX_use_certificate_chain_file(context, settings.certificate) == 1)
    precondition(SSL_CTX_use_PrivateKey_file(context, settings.key, SSL_FILETYPE_PEM) == 1)
    precondition(SSL_CTX_check_private_key(context) == 1)
    precondition(X509_VERIFY_PARAM_set1_host(SSL_CTX_get0_param(context), host, 0) == 1)
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
    return context
}

// OpenSSL's own start-up outside the figures: its decoders, made at the first key read, are
// ~2.5 MB once.
SSL_CTX_free(oldContext(TLSSettings(ca: directory + "/ca.pem", certificate: directory + "/server.pem", key: directory + "/server.key")))
/// Makes the contexts of `indices` as `mode` says; returns the old ones, which the caller keeps
/// (the cache keeps its own reference to each of TLSContexts').
func make(_ indices: ClosedRange<Int>) throws(TransportError) -> [OpaquePointer] {
    switch mode {
    case "old-ca", "old-system":
        return indices.map { oldContext(identity($0, trust: mode == "old-ca" ? ca : nil)) }
    case "new-ca", "new-system":
        for index in indices { _ = try TLSContexts.context(for: identity(index, trust: mode == "new-ca" ? ca : nil), host: host) }
    case "prepare":
        let failures = TLSContexts.prepare(indices.map { identity($0, trust: ca) }, host: host)
        precondition(failures.isEmpty, "\(failures)")
    case "shared":
        for _ in indices { _ = try TLSContexts.context(for: identity(1, trust: ca), host: host) }
    default:
        print("unknown mode '\(mode)'")
        exit(2)
    }
    return []
}

// The first apart: it loads the shared trust store and starts OpenSSL's caches, once (new-ca:
// ~1.8 MB and ~3 ms).
let rssBefore = residentKB()
var start = now()
var kept = try make(1...1)
let first = (milliseconds: (now() - start) * 1000, kb: residentKB() - rssBefore)
let rssFirst = residentKB()
start = now()
if count > 1 { kept += try make(2...count) }
let seconds = now() - start
let rssAfter = residentKB()
withExtendedLifetime(kept) {}
let rest = Double(max(1, count - 1))
let figures = String(
    format: "%.3f ms and %.1f KB per context after the first (%.2f s in all); the first %.1f ms and %.0f KB",
    seconds * 1000 / rest, (rssAfter - rssFirst) / rest, seconds + first.milliseconds / 1000, first.milliseconds, first.kb)
print("\(mode), \(count): \(figures) (RSS \(Int(rssBefore / 1024)) → \(Int(rssAfter / 1024)) MB)")
