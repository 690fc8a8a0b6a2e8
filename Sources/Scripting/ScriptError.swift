/// What went wrong in a script, where: its file and line, as Lua says them (`path:12: …`);
/// `line` is `nil` where Lua names no line (the memory cap, a script that cannot be read).
package struct ScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var message: String
    /// Why the call was stopped, beside an error of the script's own.
    package var stop: Stop?

    package enum Stop: Sendable, Equatable {
        /// Its call ran out of instructions (`ScriptLimits.instructions`).
        case budget
        /// Its interpreter ran out of memory (`ScriptLimits.memory`).
        case memory
    }

    package init(file: String, line: Int?, message: String, stop: Stop? = nil) {
        self.file = file
        self.line = line
        self.message = message
        self.stop = stop
    }

    /// Lua's message `script:12: text` (`ScriptEngine.chunkName`) as an error of `file`; one that
    /// names another place (a chunk made with `load`) keeps its words whole.
    init(lua text: String, file: String, stop: Stop? = nil) {
        self.file = file
        self.stop = stop
        let prefix = ScriptEngine.chunkName + ":"
        if text.hasPrefix(prefix) {
            let rest = text.dropFirst(prefix.count)
            if let colon = rest.firstIndex(of: ":"), let line = Int(rest[..<colon]) {
                self.line = line
                message = String(rest[rest.index(after: colon)...]).trimmingPrefix(" ").description
                return
            }
        }
        line = nil
        message = text
    }

    package var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}

extension Substring {
    fileprivate func trimmingPrefix(_ prefix: String) -> Substring {
        hasPrefix(prefix) ? dropFirst(prefix.count) : self
    }
}
