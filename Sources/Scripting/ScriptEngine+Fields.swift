import CLua
import Signals

/// `device.fields` written and read straight from the fields' values: the device's table, its
/// keys the shape's interned names, read back field by field against what it was given. Through `ScriptValue` dictionaries both ways a tick of six fields cost 44,300
/// instructions against 6,700 without a script (callgrind), 85 % of it in Swift's hashing.
extension ScriptEngine {
    /// The shape of fields at `paths` (a field's path split at its dots), its names interned.
    package func fieldShape(paths: [[String]]) -> FieldShape {
        var positions: [String: Int32] = [:]
        lua_createtable(state, Int32(clamping: paths.count + 1), 0)
        push(.text("fields"))
        lua_rawseti(state, -2, lua_Integer(FieldShape.fields))
        positions["fields"] = FieldShape.fields
        let indexed = paths.map { path in
            path.map { name in
                if let known = positions[name] { return known }
                let position = Int32(positions.count + 1)
                positions[name] = position
                push(.text(name))
                lua_rawseti(state, -2, lua_Integer(position))
                return position
            }
        }
        let names = luaL_ref(state, devsim_lua_registryindex())
        return FieldShape(
            names: names, paths: indexed, topCount: Int32(Set(indexed.compactMap(\.first)).count),
            dotted: paths.map { $0.joined(separator: ".") })
    }

    /// Sets `fields` of the device table on the top of the stack to `values` (in the shape's
    /// order; `null` leaves a field out), a table a level a group. The tables are the device's
    /// from call to call, made again only where its script replaced one with something else:
    /// writing over their keys costs a third of making them (callgrind, a tick of six fields).
    func setFields(_ values: [SignalValue], shape: FieldShape) {
        let device = lua_gettop(state)
        lua_rawgeti(state, devsim_lua_registryindex(), lua_Integer(shape.names))
        let names = lua_gettop(state)
        pushTable(FieldShape.fields, names: names, in: device, sized: shape.topCount)
        let top = lua_gettop(state)
        for (path, value) in zip(shape.paths, values) {
            var table = top
            for name in path.dropLast() {
                pushTable(name, names: names, in: table, sized: 4)
                table = lua_gettop(state)
            }
            lua_rawgeti(state, names, lua_Integer(path[path.count - 1]))
            push(value)
            lua_rawset(state, table)
            lua_settop(state, top)
        }
        lua_settop(state, device)
    }

    /// Pushes the table at `names[name]` of the table at `index`: the one there, or a new one
    /// put there where there is none (or the script put something else there).
    private func pushTable(_ name: Int32, names: Int32, in index: Int32, sized size: Int32) {
        lua_rawgeti(state, names, lua_Integer(name))
        if lua_rawget(state, index) == LUA_TTABLE { return }
        devsim_lua_pop(state, 1)
        lua_createtable(state, 0, size)
        lua_rawgeti(state, names, lua_Integer(name))
        lua_pushvalue(state, -2)
        lua_rawset(state, index)
    }

    /// What a hook left in `device.fields`, read against `values`, the fields it was given:
    /// `changed(index, value)` for each field it changed, and what could not be read, if
    /// anything (the last such field).
    package func readFields(
        of device: ScriptDevice, shape: FieldShape, over values: [SignalValue], changed: (Int, SignalValue) -> Void
    ) -> FieldsProblem? {
        let base = lua_gettop(state)
        defer { lua_settop(state, base) }
        lua_rawgeti(state, devsim_lua_registryindex(), lua_Integer(shape.names))
        let names = lua_gettop(state)
        lua_rawgeti(state, devsim_lua_registryindex(), lua_Integer(device.reference))
        lua_rawgeti(state, names, lua_Integer(FieldShape.fields))
        let type = lua_rawget(state, -2)
        guard type == LUA_TTABLE else { return .notATable(String(cString: lua_typename(state, type))) }
        let top = lua_gettop(state)
        var problem: FieldsProblem?
        for (index, path) in shape.paths.enumerated() {
            lua_settop(state, top)
            var found = true
            for name in path {
                guard lua_type(state, -1) == LUA_TTABLE else {
                    found = false
                    break
                }
                lua_rawgeti(state, names, lua_Integer(name))
                lua_rawget(state, -2)
            }
            guard let value = found ? signalValue(at: -1, like: values[index]) : .null else {
                problem = .notAValue(field: index, type: String(cString: lua_typename(state, lua_type(state, -1))))
                continue
            }
            if value != values[index] { changed(index, value) }
        }
        return problem
    }

    /// The field at `index` of the stack as a field that was `original`: numbers keep the
    /// field's kind (an integer, a number, a timestamp in milliseconds), a text is compared in
    /// place and made only when it changed; `nil` for a table or a function.
    private func signalValue(at index: Int32, like original: SignalValue) -> SignalValue? {
        switch lua_type(state, index) {
        case LUA_TNIL: return .null
        case LUA_TBOOLEAN: return .bool(lua_toboolean(state, index) != 0)
        case LUA_TSTRING:
            var length = 0
            guard let bytes = devsim_lua_tostring(state, index, &length) else { return .null }
            let given = UnsafeRawBufferPointer(start: bytes, count: length)
            if case .string(let text) = original, text.utf8.elementsEqual(given) { return original }
            return .string(String(decoding: given, as: UTF8.self))
        case LUA_TNUMBER:
            var converted: Int32 = 0
            if lua_isinteger(state, index) != 0 {
                let integer = Int64(devsim_lua_tointeger(state, index, &converted))
                switch original {
                case .number: return .number(Double(integer))
                case .utcTimestamp: return .utcTimestamp(milliseconds: integer)
                default: return .integer(integer)
                }
            }
            let number = devsim_lua_tonumber(state, index, &converted)
            switch original {
            case .utcTimestamp: return .utcTimestamp(milliseconds: Int64(clamping: Int(exactly: number.rounded()) ?? 0))
            case .integer where number == number.rounded() && abs(number) < 9e18: return .integer(Int64(number))
            default: return .number(number)
            }
        default: return nil
        }
    }

    /// Pushes a field's value as a script sees it: a timestamp as its milliseconds.
    func push(_ value: SignalValue) {
        switch value {
        case .number(let number): lua_pushnumber(state, number)
        case .integer(let integer): lua_pushinteger(state, lua_Integer(integer))
        case .bool(let flag): lua_pushboolean(state, flag ? 1 : 0)
        case .string(var text):
            text.withUTF8 { bytes in
                _ = lua_pushlstring(state, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, bytes.count)
            }
        case .utcTimestamp(let milliseconds): lua_pushinteger(state, lua_Integer(milliseconds))
        case .null: lua_pushnil(state)
        }
    }
}

/// What `device.fields` held after a hook that devsim cannot send.
package enum FieldsProblem: Equatable {
    /// `device.fields` is no table (its Lua type).
    case notATable(String)
    /// The field at this index of the shape is no value a field takes (a table, a function).
    case notAValue(field: Int, type: String)
}
