import Synchronization
import Testing

@testable import Scripting
import Signals

/// Issue 40, item 2: the interpreter a loop's device scripts share: its sandbox, its limits, its
/// seeded randomness, and the hooks it finds.
@Suite struct ScriptEngineTests {
    private func load(_ text: String, engine: ScriptEngine = ScriptEngine(print: { _, _ in })) throws -> (ScriptEngine, Script) {
        (engine, try engine.load(file: "t.lua", text: Array(text.utf8)))
    }

    private func device(_ engine: ScriptEngine, _ id: String = "d-1") -> ScriptDevice {
        engine.makeDevice(id: id, index: 1, random: (1, 2, 3, 4))
    }

    @Test func aScriptsHooksAreItsGlobalFunctionsWithTheirLines() throws {
        let (_, script) = try load(
            """
            local step = 2

            function tick(device)
              return false
            end
            function command(device, field, value) end
            """)
        #expect(script.hooks == [.tick: 3, .command: 6])
    }

    @Test func aSyntaxErrorNoHookAndAHookThatIsNoFunctionAreSaidAtTheirPlace() {
        #expect(throws: ScriptError(file: "t.lua", line: 2, message: "unexpected symbol near '='")) {
            try load("function tick(device)\n  x = = 1\nend")
        }
        #expect(throws: ScriptError.self) { try load("local x = 1") }
        do {
            _ = try load("tick = 5")
            Issue.record("a tick that is a number was taken")
        } catch {
            #expect("\(error)".contains("'tick' is a number, and a hook is a function"))
        }
        do {
            _ = try load("local t = nil\nt.x = 1\nfunction tick(d) end")
            Issue.record("an error of the top level was taken")
        } catch {
            #expect((error as? ScriptError)?.line == 2, "\(error)")
        }
    }

    @Test func theSandboxHasNoIOOrOSAndNoBytecode() throws {
        let (engine, script) = try load(
            """
            function tick(device)
              local checks = {}
              checks.io = io == nil
              checks.os = os == nil
              checks.require = require == nil
              checks.dofile = dofile == nil
              checks.loadfile = loadfile == nil
              checks.dump = string.dump == nil
              checks.debug = debug == nil
              checks.text = load("return 40 + 2")() == 42
              local binary, why = load("\\27Lua")
              checks.binary = binary == nil and why ~= nil
              return checks
            end
            function command(device, field, value)
              os.execute("touch /tmp/devsim-escaped")
            end
            """)
        let device = device(engine)
        let checks = try engine.call(.tick, of: script, device: device, time: 0).get()
        guard case .table(let entries) = checks.first else {
            Issue.record("\(checks)")
            return
        }
        #expect(entries.count == 9 && entries.values.allSatisfy { $0 == .bool(true) }, "\(entries)")
        let escape = engine.call(.command, of: script, device: device, time: 0, arguments: [.text("x"), .null])
        guard case .failure(let error) = escape else {
            Issue.record("os.execute ran")
            return
        }
        #expect(error.line == 16 && error.message.contains("global 'os'"), "\(error)")
    }

    @Test func anEndlessLoopIsStoppedByTheBudgetAtItsLineAndTheInterpreterGoesOn() throws {
        let (engine, script) = try load(
            """
            function tick(device)
              while true do
                device.state.n = (device.state.n or 0) + 1
              end
            end
            function command(device) return 7 end
            """, engine: ScriptEngine(limits: ScriptLimits(memory: 64 << 20, instructions: 200_000), print: { _, _ in }))
        let device = device(engine)
        guard case .failure(let error) = engine.call(.tick, of: script, device: device, time: 0) else {
            Issue.record("the loop was not stopped")
            return
        }
        #expect(error.stop == .budget && (2...3).contains(error.line ?? 0), "\(error)")
        #expect(try engine.call(.command, of: script, device: device, time: 0).get() == [.integer(7)])
    }

    @Test func theMemoryCapStopsAScriptThatGrowsWithoutEnd() throws {
        let (engine, script) = try load(
            """
            function tick(device)
              local all = {}
              for i = 1, 1e9 do all[i] = string.rep("x", 1000) .. i end
            end
            function command(device) return "after" end
            """, engine: ScriptEngine(limits: ScriptLimits(memory: 8 << 20, instructions: 1 << 40), print: { _, _ in }))
        let device = device(engine)
        guard case .failure(let error) = engine.call(.tick, of: script, device: device, time: 0) else {
            Issue.record("no cap")
            return
        }
        #expect(error.stop == .memory, "\(error)")
        #expect(engine.memoryInUse < 8 << 20)
        #expect(try engine.call(.command, of: script, device: device, time: 0).get() == [.text("after")])
    }

    @Test func mathRandomIsTheDevicesOwnSeededStream() throws {
        let (engine, script) = try load(
            """
            function tick(device)
              return math.random(), math.random(6), math.random(10, 12)
            end
            function command(device) math.randomseed(1) end
            """)
        let one = engine.makeDevice(id: "a", index: 1, random: (1, 2, 3, 4))
        let again = engine.makeDevice(id: "b", index: 2, random: (1, 2, 3, 4))
        let other = engine.makeDevice(id: "c", index: 3, random: (5, 6, 7, 8))
        let first = try engine.call(.tick, of: script, device: one, time: 0).get()
        #expect(first == (try engine.call(.tick, of: script, device: again, time: 0).get()), "the same seed, the same draws")
        #expect(first != (try engine.call(.tick, of: script, device: other, time: 0).get()))
        #expect(first != (try engine.call(.tick, of: script, device: one, time: 0).get()), "the stream goes on")
        guard case .number(let unit) = first[0], case .integer(let die) = first[1], case .integer(let ranged) = first[2] else {
            Issue.record("\(first)")
            return
        }
        #expect(unit >= 0 && unit < 1 && (1...6).contains(die) && (10...12).contains(ranged))
        guard case .failure(let error) = engine.call(.command, of: script, device: one, time: 0) else {
            Issue.record("randomseed took")
            return
        }
        #expect(error.message.contains("--seed"))
    }

    @Test func printSaysItsLineWithTheDevicesID() throws {
        let lines = Mutex<[String]>([])
        let engine = ScriptEngine(print: { device, text in lines.withLock { $0.append(device + ": " + text) } })
        let (_, script) = try load("function tick(device) print('at', device.time, device.id, nil) end", engine: engine)
        _ = engine.call(.tick, of: script, device: device(engine, "lamp-3"), time: 1.5)
        #expect(lines.withLock { $0 } == ["lamp-3: at\t1.5\tlamp-3\tnil"])
    }

    @Test func fieldsGoInAndComeBackAsTheHookLeftThem() throws {
        let (engine, script) = try load(
            """
            function tick(device)
              local f = device.fields
              f.temp = f.temp + 1
              f.loc.lat = nil
              f.count = f.count * 2.0
              f.at = f.at + 1000
              f.extra = "no field of the shape's"
              device.state.ticks = (device.state.ticks or 0) + 1
              return device.state.ticks
            end
            """)
        let device = device(engine)
        let shape = engine.fieldShape(paths: [["temp"], ["loc", "lat"], ["loc", "lon"], ["on"], ["mode"], ["count"], ["at"]])
        let values: [SignalValue] = [
            .number(20.5), .number(1), .number(2), .bool(true), .string("heat"), .integer(3), .utcTimestamp(milliseconds: 1_000),
        ]
        #expect(try engine.call(.tick, of: script, device: device, time: 0, fields: (shape, values)).get() == [.integer(1)])
        var changed: [Int: SignalValue] = [:]
        #expect(engine.readFields(of: device, shape: shape, over: values) { changed[$0] = $1 } == nil)
        // A whole number for an integer field stays an integer; a timestamp crosses as its milliseconds.
        #expect(changed == [0: .number(21.5), 1: .null, 5: .integer(6), 6: .utcTimestamp(milliseconds: 2_000)])
        #expect(
            try engine.call(.tick, of: script, device: device, time: 1, fields: (shape, values)).get() == [.integer(2)], "its state stays")
    }

    @Test func whatCannotBeAFieldIsNamed() throws {
        let (engine, script) = try load(
            """
            function tick(device)
              if device.time == 0 then device.fields.loc = { lat = {} } else device.fields = 3 end
            end
            """)
        let device = device(engine)
        let shape = engine.fieldShape(paths: [["loc", "lat"], ["on"]])
        let values: [SignalValue] = [.number(1), .bool(true)]
        _ = engine.call(.tick, of: script, device: device, time: 0, fields: (shape, values))
        #expect(engine.readFields(of: device, shape: shape, over: values) { _, _ in } == .notAValue(field: 0, type: "table"))
        _ = engine.call(.tick, of: script, device: device, time: 1, fields: (shape, values))
        #expect(engine.readFields(of: device, shape: shape, over: values) { _, _ in } == .notATable("number"))
    }
}
