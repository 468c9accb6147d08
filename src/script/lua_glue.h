// Internal to src/script: building a wrk-style Lua state (libraries, the wrk/hail tables, the
// addr/thread/stats userdata types) and calling into it under protection. Each lua_State belongs to
// one ThreadScript or MainScript and is touched only by the thread that currently owns that object.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <lua.hpp>
#include <memory>
#include <optional>
#include <string>

#include "core/result.h"
#include "net/address.h"
#include "script/script.h"
#include "script/stats_view.h"

namespace hail::script_internal {

// Every state's stack starts with the error handler; ThreadScript keeps its last dynamic and its
// static request string in the next two slots so the bytes it hands out stay referenced.
inline constexpr int kHandlerSlot = 1;
inline constexpr int kRequestSlot = 2;
inline constexpr int kStaticRequestSlot = 3;

inline constexpr size_t kMaxTagBytes = 64;
// thread:get/set copy tables recursively; deeper nesting is refused (a cycle would never end).
inline constexpr int kMaxCopyDepth = 100;

// What a thread userdata refers to. Shared so that a thread object the main state keeps (setup.lua
// stores them for done()) never dangles: `state` is cleared when the ThreadScript goes away.
struct ThreadShared {
  lua_State* state = nullptr;
  std::atomic<bool> stop{false};
  std::optional<SocketAddress> address;
  uint32_t index = 0;
};

// A new state with the libraries, the wrk and hail tables filled from `target`, the error handler
// in kHandlerSlot, and the script's top level run (none when path is empty). hail.tag() writes the
// name to *tag_target when both are non-null. Closes the state on error.
Result<lua_State*> open_state(const std::string& path, const ScriptTarget& target,
                              std::string** tag_target);
void close_state(lua_State* L);

// lua_pcall with the handler: an error comes back as "file:line: message".
Status call_protected(lua_State* L, int nargs, int nresults);
// Calls fn(context, <nargs values already pushed>) under protection; fn may raise Lua errors.
Status call_function(lua_State* L, lua_CFunction fn, const void* context, int nargs, int nresults);
// A raw read of the global, so that a metatable on _G (strict-mode scripts) cannot raise outside
// a protected call.
bool global_is_function(lua_State* L, const char* name);
void push_raw_global(lua_State* L, const char* name);

// Userdata types and the wrk functions written in C++ (lua_types.cc).
void register_types(lua_State* L);
int wrk_lookup(lua_State* L);
int wrk_connect(lua_State* L);
void push_address(lua_State* L, const SocketAddress& address);
void push_thread(lua_State* L, const std::shared_ptr<ThreadShared>& thread);
// The userdata holds a pointer the caller clears (*result = nullptr) once done() returned.
const StatsView** push_stats(lua_State* L, const StatsView* view);

}  // namespace hail::script_internal
