import CLua

/// Values between Swift and Lua's stack, with the raw accessors only: no metamethod runs, and
/// none raises an error outside a protected call (`ScriptEngine`).
extension ScriptEngine {
    /// The deepest a table is read: a table that holds itself is cut there.
    static let deepest = 16

    /// Pushes `value`.
    func push(_ value: ScriptValue) {
        switch value {
        case .number(let number): lua_pushnumber(state, number)
        case .integer(let integer): lua_pushinteger(state, lua_Integer(integer))
        case .bool(let flag): lua_pushboolean(state, flag ? 1 : 0)
        case .string(let bytes):
            bytes.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(state, $0.baseAddress, $0.count) }
            }
        case .table(let entries):
            lua_createtable(state, 0, Int32(clamping: entries.count))
            for (key, entry) in entries {
                push(.text(key))
                push(entry)
                lua_rawset(state, -3)
            }
        case .list(let items):
            lua_createtable(state, Int32(clamping: items.count), 0)
            for (index, item) in items.enumerated() {
                push(item)
                lua_rawseti(state, -2, lua_Integer(index + 1))
            }
        case .null: lua_pushnil(state)
        }
    }

    /// The value at `index` of the stack; a function, a userdata or a thread reads as `null`.
    func value(at index: Int32, depth: Int = 0) -> ScriptValue {
        let index = lua_absindex(state, index)
        switch lua_type(state, index) {
        case LUA_TBOOLEAN:
            return .bool(lua_toboolean(state, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(state, index) != 0 {
                var isInteger: Int32 = 0
                return .integer(Int64(devsim_lua_tointeger(state, index, &isInteger)))
            }
            var isNumber: Int32 = 0
            return .number(devsim_lua_tonumber(state, index, &isNumber))
        case LUA_TSTRING:
            var length = 0
            guard let bytes = devsim_lua_tostring(state, index, &length) else { return .null }
            return .string(Array(UnsafeRawBufferPointer(start: bytes, count: length)))
        case LUA_TTABLE:
            guard depth < Self.deepest else { return .null }
            return table(at: index, depth: depth)
        default:
            return .null
        }
    }

    /// The table at `index`: a list when its keys are 1…n, else its string keys' entries.
    private func table(at index: Int32, depth: Int) -> ScriptValue {
        var entries: [String: ScriptValue] = [:]
        var items: [Int: ScriptValue] = [:]
        lua_pushnil(state)
        while lua_next(state, index) != 0 {
            // The key is read by its type, never converted: a number made a string in place
            // would break the walk.
            switch lua_type(state, -2) {
            case LUA_TSTRING:
                var length = 0
                if let bytes = devsim_lua_tostring(state, -2, &length) {
                    entries[String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)] = value(
                        at: -1, depth: depth + 1)
                }
            case LUA_TNUMBER where lua_isinteger(state, -2) != 0:
                var isInteger: Int32 = 0
                items[Int(devsim_lua_tointeger(state, -2, &isInteger))] = value(at: -1, depth: depth + 1)
            default:
                break
            }
            devsim_lua_pop(state, 1)
        }
        if entries.isEmpty, !items.isEmpty, items.keys.min() == 1, items.keys.max() == items.count {
            return .list((1...items.count).map { items[$0]! })
        }
        return .table(entries)
    }
}
