#ifndef DEVSIM_CLUA_SHIM_H
#define DEVSIM_CLUA_SHIM_H
// Lua 5.4, sandboxed for device scripts. What runs on Lua's side of a protected call is C here:
// a Lua error is a longjmp, which must never cross a Swift frame, so the functions Lua calls
// (print, math.random, the budget's hook, the allocator) are written in C, and Swift only calls
// into Lua through lua_pcall, or with raw accessors that raise no error outside one (the memory
// cap and the budget apply inside the protected calls only, and the collector is stopped outside).
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// The interpreter's limits: its memory, and a hook's instructions, enforced while a hook runs.
typedef struct devsim_lua_limits {
    size_t used;
    size_t cap;
    int enforcing;
    /// Instructions left, in steps of `DEVSIM_LUA_HOOK_STEP`.
    long steps;
    /// Why the last call was stopped: 1 the budget, 2 the memory cap; 0 none.
    int stopped;
    /// Where print's lines go, with the context Swift gave.
    void (*print)(void *context, const char *text, size_t length);
    void *printContext;
    /// The xoshiro256** state math.random draws from: the current device's.
    uint64_t *random;
} devsim_lua_limits;

#define DEVSIM_LUA_HOOK_STEP 1000

static inline void *devsim_lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    devsim_lua_limits *limits = (devsim_lua_limits *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        limits->used -= old;
        return NULL;
    }
    if (limits->enforcing && nsize > old && limits->used - old + nsize > limits->cap) {
        limits->stopped = 2;
        return NULL;
    }
    void *grown = realloc(ptr, nsize);
    if (grown) limits->used = limits->used - old + nsize;
    return grown;
}

static inline devsim_lua_limits *devsim_lua_limits_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (devsim_lua_limits *)ud;
}

static inline void devsim_lua_count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    devsim_lua_limits *limits = devsim_lua_limits_of(L);
    if (!limits->enforcing) return;
    if (--limits->steps > 0) return;
    limits->stopped = 1;
    // Where the script is (level 0 in a hook: the function running), not its caller's.
    luaL_where(L, 0);
    lua_pushstring(L, "the instruction budget of one call is spent (an endless loop?)");
    lua_concat(L, 2);
    lua_error(L);
}

/// xoshiro256** (Blackman and Vigna), the generator devsim's Swift side uses too.
static inline uint64_t devsim_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t devsim_xoshiro_next(uint64_t *s) {
    uint64_t result = devsim_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = devsim_rotl(s[3], 45);
    return result;
}

/// math.random as Lua 5.4's, drawing from the current device's stream: [0, 1), [1, m], [m, n].
static inline int devsim_lua_random(lua_State *L) {
    devsim_lua_limits *limits = devsim_lua_limits_of(L);
    if (!limits->random) return luaL_error(L, "math.random has no device to draw for here");
    uint64_t rv = devsim_xoshiro_next(limits->random);
    lua_Integer low, up;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, (lua_Number)(rv >> 11) * 0x1.0p-53);
        return 1;
    case 1:
        low = 1;
        up = luaL_checkinteger(L, 1);
        if (up == 0) {
            lua_pushinteger(L, (lua_Integer)rv);
            return 1;
        }
        break;
    case 2:
        low = luaL_checkinteger(L, 1);
        up = luaL_checkinteger(L, 2);
        break;
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    luaL_argcheck(L, low <= up, lua_gettop(L), "interval is empty");
    uint64_t range = (uint64_t)up - (uint64_t)low;
    uint64_t value = rv;
    if ((range & (range + 1)) == 0) {
        value &= range;
    } else {
        uint64_t mask = range;
        mask |= mask >> 1; mask |= mask >> 2; mask |= mask >> 4;
        mask |= mask >> 8; mask |= mask >> 16; mask |= mask >> 32;
        while ((value &= mask) > range) value = devsim_xoshiro_next(limits->random);
    }
    lua_pushinteger(L, (lua_Integer)((uint64_t)low + value));
    return 1;
}

static inline int devsim_lua_randomseed(lua_State *L) {
    return luaL_error(L, "math.randomseed is devsim's: --seed seeds every device's math.random");
}

/// print: its arguments as tostring makes them, tab-separated, to devsim's log.
static inline int devsim_lua_print(lua_State *L) {
    devsim_lua_limits *limits = devsim_lua_limits_of(L);
    int n = lua_gettop(L);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&buffer, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&buffer);
    }
    luaL_pushresult(&buffer);
    size_t length = 0;
    const char *text = lua_tolstring(L, -1, &length);
    if (limits->print) limits->print(limits->printContext, text, length);
    return 0;
}

/// load, of text only: a chunk of bytecode could break the sandbox.
static inline int devsim_lua_load(lua_State *L) {
    int env = !lua_isnone(L, 4);
    size_t length = 0;
    const char *text = luaL_checklstring(L, 1, &length);
    const char *name = luaL_optstring(L, 2, text);
    int status = luaL_loadbufferx(L, text, length, name, "t");
    if (status == LUA_OK && env) {
        lua_pushvalue(L, 4);
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    if (status != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    return 1;
}

/// A state with base, string, table, math and utf8 only: no io, os, package (require), debug,
/// coroutine; no dofile, loadfile, string.dump; load of text only; devsim's print and
/// math.random. Its limits are `limits`'s. NULL when Lua cannot make one.
static inline lua_State *devsim_lua_newstate(devsim_lua_limits *limits) {
    lua_State *L = lua_newstate(devsim_lua_alloc, limits);
    if (!L) return NULL;
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    lua_pop(L, 5);
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_pushcfunction(L, devsim_lua_load);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, devsim_lua_print);
    lua_setglobal(L, "print");
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    lua_getglobal(L, LUA_MATHLIBNAME);
    lua_pushcfunction(L, devsim_lua_random);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, devsim_lua_randomseed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
    lua_sethook(L, devsim_lua_count_hook, LUA_MASKCOUNT, DEVSIM_LUA_HOOK_STEP);
    lua_gc(L, LUA_GCSTOP);
    return L;
}

// The macros of lua.h, as functions Swift can call.
static inline int devsim_lua_pcall(lua_State *L, int nargs, int nresults, int handler) {
    return lua_pcall(L, nargs, nresults, handler);
}
static inline void devsim_lua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void devsim_lua_newtable(lua_State *L) { lua_newtable(L); }
static inline const char *devsim_lua_tostring(lua_State *L, int index, size_t *length) { return lua_tolstring(L, index, length); }
static inline lua_Number devsim_lua_tonumber(lua_State *L, int index, int *isnum) { return lua_tonumberx(L, index, isnum); }
static inline lua_Integer devsim_lua_tointeger(lua_State *L, int index, int *isnum) { return lua_tointegerx(L, index, isnum); }
/// The collector runs only while a hook does (`ScriptEngine.protectedCall`).
static inline void devsim_lua_collect(lua_State *L, int running) { lua_gc(L, running ? LUA_GCRESTART : LUA_GCSTOP); }
static inline int devsim_lua_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline int devsim_lua_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline int devsim_lua_loadtext(lua_State *L, const char *text, size_t length, const char *chunkname) {
    return luaL_loadbufferx(L, text, length, chunkname, "t");
}
#endif
