import FoundationEssentials
import Scenario
#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer's entry point: one input, loaded as a scenario. A trap anywhere in the loader is a
/// crash libFuzzer reports; so is an error that breaks the promise every caller relies on, that
/// a failed load says what is wrong and where.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let broken = check(bytes) { fatalError(broken) }
    return 0
}

/// The environment `${VAR}` is filled from: one set, one empty, the rest unset.
let environment = ["HOST": "localhost", "EMPTY": ""]

/// Loads `bytes` without touching the disk (includes and replay files are refused); returns
/// what is wrong with the outcome, or `nil` when it is a scenario or well-formed errors.
func check(_ bytes: [UInt8]) -> String? {
    do {
        _ = try ScenarioLoader.loadIsolated(bytes: bytes, file: "fuzz.yaml", environment: environment)
        return nil
    } catch {
        if error.diagnostics.isEmpty { return "a failed load reported no diagnostic" }
        for diagnostic in error.diagnostics {
            if diagnostic.line < 1 || diagnostic.column < 1 || diagnostic.message.isEmpty || diagnostic.file != "fuzz.yaml" {
                return "malformed diagnostic: \(diagnostic)"
            }
        }
        return nil
    }
}

#if !FUZZING
    /// Without `-sanitize=fuzzer` there is no libFuzzer to call the entry point, so this replays the
    /// files named on the command line through it: a crash found by the fuzzer can be rerun, and
    /// debugged, in an ordinary build. Exits 1 when any input breaks the check.
    @main
    struct ReplayInputs {
        static func main() {
            var failed = false
            for path in CommandLine.arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    print("\(path): cannot read")
                    failed = true
                    continue
                }
                if let broken = check([UInt8](data)) {
                    print("\(path): \(broken)")
                    failed = true
                } else {
                    print("\(path): ok")
                }
            }
            exit(failed ? 1 : 0)
        }
    }
#endif
