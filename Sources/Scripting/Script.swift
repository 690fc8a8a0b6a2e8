/// A script as its interpreter loaded it (`ScriptEngine.load`): its file, its environment (the
/// registry's reference), and the hooks it defines, each with the line it starts on.
package struct Script: Sendable {
    package let file: String
    let environment: Int32
    package let hooks: [Hook: Int]

    package func defines(_ hook: Hook) -> Bool { hooks[hook] != nil }
}

/// The global functions devsim calls in a device script.
package enum Hook: String, CaseIterable, Sendable {
    /// When the device starts: at its first CONNACK.
    case start
    /// At each tick: may change `device.fields`, send other messages, or skip the tick.
    case tick
    /// A command for one of its fields, or for the device.
    case command
    /// At each CONNACK.
    case connected
    /// A state document's desired part (issue 41's state documents).
    case desired

    /// Its parameters, as a script declares them.
    package var parameters: String {
        switch self {
        case .start, .tick, .connected: "device"
        case .command: "device, field, value"
        case .desired: "device, doc"
        }
    }
}

/// How far a device's hooks may go: the interpreter's memory, and the instructions of one call.
package struct ScriptLimits: Sendable, Equatable {
    package var memory: Int
    package var instructions: Int

    package init(memory: Int, instructions: Int) {
        self.memory = memory
        self.instructions = instructions
    }

    /// 64 MB an interpreter, a million instructions a call (about 10 ms here).
    package static let standard = ScriptLimits(memory: 64 << 20, instructions: 1_000_000)
}

/// A device's table in its interpreter (`ScriptEngine.makeDevice`), and its `math.random`'s
/// state. A class: the interpreter reads the state through a pointer while a hook runs.
package final class ScriptDevice {
    package let id: String
    let reference: Int32
    let random: UnsafeMutablePointer<UInt64>

    init(id: String, reference: Int32, random: (UInt64, UInt64, UInt64, UInt64)) {
        self.id = id
        self.reference = reference
        self.random = .allocate(capacity: 4)
        self.random.initialize(from: [random.0, random.1, random.2, random.3], count: 4)
    }

    deinit {
        random.deallocate()
    }
}
