import Foundation
import Testing

/// Issue 26, item 9: the import rules `docs/architecture.md` states are the ones the sources keep.
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The toolchain's modules (and the C library of each platform), which every module may import.
    static let toolchain: Set<String> = ["Glibc", "Musl", "Darwin", "Foundation", "FoundationEssentials", "Dispatch", "Synchronization"]

    /// The table between `<!-- imports -->` and `<!-- /imports -->`: each module and what it may import.
    static func rules() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let start = try #require(text.range(of: "<!-- imports -->"))
        let end = try #require(text.range(of: "<!-- /imports -->"))
        var rules: [String: Set<String>] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, cells[0] != "Module", !cells[0].hasPrefix("-") else { continue }
            rules[cells[0]] = Set(cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "—" })
        }
        return rules
    }

    /// The modules each Swift file under `Sources/module` imports.
    static func imports(of module: String) throws -> [(file: String, module: String)] {
        let folder = root.appendingPathComponent("Sources/\(module)")
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        var found: [(String, String)] = []
        for file in files where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ $0.hasPrefix("@") || $0 == "package" || $0 == "public" })
                else { continue }
                found.append((file.lastPathComponent, String(words[index + 1])))
            }
        }
        return found
    }

    @Test func everyModuleImportsOnlyWhatTheArchitectureAllows() throws {
        let rules = try Self.rules()
        #expect(rules.count >= 10, "the table was read: \(rules.keys.sorted())")
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources").path)
            .filter { !($0.hasPrefix("C") && $0.count > 1 && $0.dropFirst().first!.isUppercase) && !$0.hasPrefix(".") }
        for module in modules {
            guard let allowed = rules[module] else {
                Issue.record("Sources/\(module) is not in docs/architecture.md's table")
                continue
            }
            for (file, imported) in try Self.imports(of: module) where !Self.toolchain.contains(imported) && !allowed.contains(imported) {
                Issue.record("Sources/\(module)/…/\(file) imports \(imported), which docs/architecture.md does not allow \(module)")
            }
        }
    }

    /// The rule that matters most: the report knows nothing of the I/O stack.
    @Test func theReportImportsNothingOfTheIOStack() throws {
        let ioStack: Set<String> = ["Mosquitto", "Reactor", "Simulator", "Transport", "Service"]
        let rules = try Self.rules()
        #expect(rules["Report"]?.isDisjoint(with: ioStack) == true)
    }
}
