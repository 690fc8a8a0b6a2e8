import Scripting
import Signals

extension ScenarioReader {
    /// `script: FILE.lua`: read now, and loaded once in an interpreter of its own, so that a
    /// syntax error, an error of its top level, a hook that is no function, or no hook at all is
    /// said at the script's file and line before anything connects.
    func script(_ node: Node) -> DeviceScript? {
        guard let written = string(node, "script") else { return nil }
        guard !written.isEmpty else {
            report(node.mark, "expected a Lua file's path for 'script', found an empty text")
            return nil
        }
        let path = resolve(written)
        locateFile("script", at: node)
        guard session.readsRecordings else {
            report(node.mark, "cannot read the script '\(path)': \(ScenarioLoader.isolatedReason)")
            return nil
        }
        let text: [UInt8]
        do {
            text = try WholeFile.bytes(at: path)
        } catch {
            report(node.mark, "cannot read the script '\(path)': \(error.reason)")
            return nil
        }
        let script: Script
        do {
            script = try ScriptEngine(print: { _, _ in }).load(file: path, text: text)
        } catch {
            report([Diagnostic(file: error.file, line: error.line ?? 1, column: 1, message: error.message)])
            return nil
        }
        return DeviceScript(
            path: path, text: text, location: SourceLocation(file: file, line: node.mark.line, column: node.mark.column),
            hooks: Set(script.hooks.keys.map(\.rawValue)))
    }
}
