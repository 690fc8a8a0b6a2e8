import CLua
import Signals

/// One Lua 5.4 interpreter, sandboxed (`devsim_lua_newstate`: base, string, table, math and
/// utf8; no io, os, require, bytecode), for the scripts of the devices of one event loop or one
/// dry run: no locks, no interpreter a device. A device's hooks run in protected calls, each
/// with an instruction budget, under the interpreter's memory cap; `math.random` draws from the
/// device's own seeded stream, and `print` goes to `print` with the device's id. Confined to
/// the thread that made it.
package final class ScriptEngine {
    let state: OpaquePointer
    private let limits: UnsafeMutablePointer<devsim_lua_limits>
    private let settings: ScriptLimits
    private let printer: Printer

    /// Where a script's `print` goes, and for which device it runs now.
    private final class Printer {
        let print: (_ device: String, _ text: String) -> Void
        var device = ""

        init(_ print: @escaping (String, String) -> Void) {
            self.print = print
        }
    }

    /// `print(device, text)` hears each line a script prints, with the id of the device whose hook
    /// printed it.
    package init(limits: ScriptLimits = .standard, print: @escaping (_ device: String, _ text: String) -> Void) {
        settings = limits
        printer = Printer(print)
        self.limits = .allocate(capacity: 1)
        self.limits.initialize(
            to: devsim_lua_limits(
                used: 0, cap: limits.memory, enforcing: 0, steps: 0, stopped: 0,
                print: { context, text, length in
                    guard let context, let text else { return }
                    let printer = Unmanaged<Printer>.fromOpaque(context).takeUnretainedValue()
                    let line = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
                    printer.print(printer.device, line)
                },
                printContext: nil, random: nil))
        self.limits.pointee.printContext = Unmanaged.passUnretained(printer).toOpaque()
        // Only a machine out of memory leaves Lua without a state: nothing would run after.
        guard let state = devsim_lua_newstate(self.limits) else { fatalError("Lua could not make an interpreter: out of memory") }
        self.state = state
    }

    deinit {
        lua_close(state)
        limits.deallocate()
    }

    /// What Lua calls every script in its messages (`chunk:12: …`), made the script's path again
    /// (`ScriptError(lua:)`): a path as Lua names it is cut at 60 characters.
    static let chunkName = "script"

    /// Bytes the interpreter holds now.
    package var memoryInUse: Int { limits.pointee.used }

    /// Loads `text` as the script of `file` (its path, as errors name it): its top level runs
    /// once, in an environment of its own whose globals are its hooks. A syntax error, an error
    /// of its top level, a hook that is not a function, or no hook at all is thrown at its line.
    package func load(file: String, text: [UInt8]) throws(ScriptError) -> Script {
        let status = text.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                devsim_lua_loadtext(state, chars.baseAddress, chars.count, "=" + Self.chunkName)
            }
        }
        guard status == LUA_OK else { throw popError(file: file) }
        // Its environment: its own globals, reading the sandbox's where it has none.
        lua_createtable(state, 0, 8)
        lua_createtable(state, 0, 1)
        lua_rawgeti(state, devsim_lua_registryindex(), lua_Integer(LUA_RIDX_GLOBALS))
        setField("__index")
        lua_setmetatable(state, -2)
        lua_pushvalue(state, -1)
        let environment = luaL_ref(state, devsim_lua_registryindex())
        _ = lua_setupvalue(state, -2, 1)
        if let error = protectedCall(arguments: 0, results: 0, file: file, random: nil, device: "") {
            luaL_unref(state, devsim_lua_registryindex(), environment)
            throw error
        }
        var hooks: [Hook: Int] = [:]
        lua_rawgeti(state, devsim_lua_registryindex(), lua_Integer(environment))
        defer { devsim_lua_pop(state, 1) }
        for hook in Hook.allCases {
            pushString(hook.rawValue)
            lua_rawget(state, -2)
            let type = lua_type(state, -1)
            if type == LUA_TNIL {
                devsim_lua_pop(state, 1)
                continue
            }
            guard type == LUA_TFUNCTION else {
                devsim_lua_pop(state, 1)
                throw ScriptError(
                    file: file, line: nil,
                    message: "'\(hook.rawValue)' is a \(String(cString: lua_typename(state, type))), and a hook is a function: "
                        + "function \(hook.rawValue)(\(hook.parameters)) … end")
            }
            var debug = lua_Debug()
            _ = lua_getinfo(state, ">S", &debug)
            hooks[hook] = Int(debug.linedefined)
        }
        guard !hooks.isEmpty else {
            throw ScriptError(
                file: file, line: nil,
                message: "defines no hook: a device script defines one or more of the global functions "
                    + Hook.allCases.map { "\($0.rawValue)(\($0.parameters))" }.joined(separator: ", "))
        }
        return Script(file: file, environment: environment, hooks: hooks)
    }

    /// A device's table, `device` in its hooks: its `id`, `index`, a `state` its script keeps, and
    /// each call's `time` and `fields`; its `math.random` seeded by `random`.
    package func makeDevice(id: String, index: Int, random: (UInt64, UInt64, UInt64, UInt64)) -> ScriptDevice {
        lua_createtable(state, 0, 6)
        pushString(id)
        setField("id")
        lua_pushinteger(state, lua_Integer(index))
        setField("index")
        lua_createtable(state, 0, 0)
        setField("state")
        lua_pushnumber(state, 0)
        setField("time")
        let reference = luaL_ref(state, devsim_lua_registryindex())
        return ScriptDevice(id: id, reference: reference, random: random)
    }

    /// Calls `hook` of `script` for `device` at `time` (seconds into its life), with its fields
    /// (`device.fields`, in `shape`) where `fields` gives them and the hook's `arguments` after `device`:
    /// what the hook returned, or why it failed. A hook the script does not define returns
    /// nothing.
    package func call(
        _ hook: Hook, of script: Script, device: ScriptDevice, time: Double, fields: (shape: FieldShape, values: [SignalValue])? = nil,
        arguments: [ScriptValue] = []
    ) -> Result<[ScriptValue], ScriptError> {
        guard script.hooks[hook] != nil else { return .success([]) }
        let base = lua_gettop(state)
        defer { lua_settop(state, base) }
        lua_rawgeti(state, devsim_lua_registryindex(), lua_Integer(script.environment))
        pushString(hook.rawValue)
        lua_rawget(state, -2)
        lua_rawgeti(state, devsim_lua_registryindex(), lua_Integer(device.reference))
        lua_pushnumber(state, time)
        setField("time")
        if let fields { setFields(fields.values, shape: fields.shape) }
        for argument in arguments { push(argument) }
        if let error = protectedCall(
            arguments: Int32(1 + arguments.count), results: LUA_MULTRET, file: script.file, random: device.random, device: device.id)
        {
            return .failure(error)
        }
        var results: [ScriptValue] = []
        let top = lua_gettop(state)
        var index = base + 2
        while index <= top {
            results.append(value(at: index))
            index += 1
        }
        return .success(results)
    }

    /// Lets go of a device's table: a device that left the fleet.
    package func release(_ device: ScriptDevice) {
        luaL_unref(state, devsim_lua_registryindex(), device.reference)
    }

    /// The function on the stack with its `arguments` above it, called under the limits, with
    /// the collector running only then (outside, Swift's pushes must raise no error, and a
    /// finalizer must run nowhere but under a budget). Its results left on the stack; its error
    /// popped and returned.
    private func protectedCall(
        arguments: Int32, results: Int32, file: String, random: UnsafeMutablePointer<UInt64>?, device: String
    ) -> ScriptError? {
        limits.pointee.enforcing = 1
        limits.pointee.stopped = 0
        limits.pointee.steps = max(1, settings.instructions / Int(DEVSIM_LUA_HOOK_STEP))
        limits.pointee.random = random
        printer.device = device
        devsim_lua_collect(state, 1)
        let status = devsim_lua_pcall(state, arguments, results, 0)
        devsim_lua_collect(state, 0)
        limits.pointee.enforcing = 0
        limits.pointee.random = nil
        guard status != LUA_OK else { return nil }
        let stop: ScriptError.Stop? =
            switch limits.pointee.stopped {
            case 1: .budget
            case 2: .memory
            default: status == LUA_ERRMEM ? .memory : nil
            }
        var error = popError(file: file)
        error.stop = stop
        if stop == .memory {
            error.message = "the scripts' memory cap of \(settings.memory / (1 << 20)) MB is reached (\(error.message))"
        }
        return error
    }

    /// The error on the top of the stack, popped.
    private func popError(file: String) -> ScriptError {
        var length = 0
        let text: String
        if lua_type(state, -1) == LUA_TSTRING, let bytes = devsim_lua_tostring(state, -1, &length) {
            text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        } else {
            text = "(an error that is a \(String(cString: lua_typename(state, lua_type(state, -1)))) value)"
        }
        devsim_lua_pop(state, 1)
        return ScriptError(lua: text, file: file)
    }

    /// Sets `key` of the table under the value on the top of the stack to that value, raw.
    private func setField(_ key: String) {
        pushString(key)
        lua_rotate(state, -2, 1)
        lua_rawset(state, -3)
    }

    private func pushString(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            _ = lua_pushlstring(state, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, bytes.count)
        }
    }
}
