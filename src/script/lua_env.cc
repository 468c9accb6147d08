#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "script/lua_glue.h"

namespace hail::script_internal {
namespace {

// The Lua half of wrk's API, with wrk.lua's behaviour (field defaults, Host defaulting, the static
// request rendered once in init, wrk.format's header and Content-Length rules, which mutate the
// headers table they are given, exactly as wrk's do). Receives the C++ functions as chunk
// arguments.
constexpr std::string_view kBootstrapLua = R"lua(
local lookup, connect, tag = ...

local wrk = {
  scheme = "http",
  host = "localhost",
  port = nil,
  method = "GET",
  path = "/",
  headers = {},
  body = nil,
  thread = nil,
  lookup = lookup,
  connect = connect,
}

function wrk.resolve(host, service)
  local reachable = wrk.lookup(host, service)
  for i = #reachable, 1, -1 do
    if not wrk.connect(reachable[i]) then
      table.remove(reachable, i)
    end
  end
  wrk.addrs = reachable
end

function wrk.setup(thread)
  thread.addr = wrk.addrs[1]
  if type(setup) == "function" then
    setup(thread)
  end
end

function wrk.init(args)
  if not wrk.headers["Host"] then
    local authority = wrk.host
    if authority:find(":") then
      authority = "[" .. authority .. "]"
    end
    if wrk.port then
      authority = authority .. ":" .. wrk.port
    end
    wrk.headers["Host"] = authority
  end
  if type(init) == "function" then
    init(args)
  end
  local rendered = wrk.format()
  wrk.request = function()
    return rendered
  end
end

function wrk.format(method, path, headers, body)
  method = method or wrk.method
  path = path or wrk.path
  headers = headers or wrk.headers
  body = body or wrk.body
  if not headers["Host"] then
    headers["Host"] = wrk.headers["Host"]
  end
  headers["Content-Length"] = body and string.len(body)
  local lines = { string.format("%s %s HTTP/1.1", method, path) }
  for name, value in pairs(headers) do
    lines[#lines + 1] = string.format("%s: %s", name, value)
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = body or ""
  return table.concat(lines, "\r\n")
end

return wrk, { tag = tag }
)lua";

// hail.tag(name [, request]): labels the requests of the request() call in progress; returns
// everything after the name so it can wrap the request inline.
int hail_tag(lua_State* L) {
  // Named explicitly: in `return hail.tag(...)` (a tail call) Lua no longer knows the name.
  if (lua_type(L, 1) != LUA_TSTRING) {
    return luaL_error(L, "bad argument #1 to 'hail.tag' (string expected, got %s)",
                      luaL_typename(L, 1));
  }
  size_t length = 0;
  const char* name = lua_tolstring(L, 1, &length);
  if (length == 0 || length > kMaxTagBytes) {
    return luaL_error(L, "bad argument #1 to 'hail.tag' (a tag name is 1 to %d bytes, not %d)",
                      static_cast<int>(kMaxTagBytes), static_cast<int>(length));
  }
  auto** target = static_cast<std::string**>(lua_touserdata(L, lua_upvalueindex(1)));
  if (target != nullptr && *target != nullptr) (*target)->assign(name, length);
  return lua_gettop(L) - 1;
}

void set_string_field(lua_State* L, const char* key, const std::string& value, bool empty_is_nil) {
  if (empty_is_nil && value.empty()) {
    lua_pushnil(L);
  } else {
    lua_pushlstring(L, value.data(), value.size());
  }
  lua_setfield(L, -2, key);
}

struct OpenContext {
  const ScriptTarget* target;
  std::string** tag_target;
};

int open_libraries(lua_State* L) {
  const auto* context = static_cast<const OpenContext*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  luaL_openlibs(L);
  register_types(L);
  if (luaL_loadbuffer(L, kBootstrapLua.data(), kBootstrapLua.size(), "=[hail wrk.lua]") != 0) {
    return lua_error(L);
  }
  lua_pushcfunction(L, wrk_lookup);
  lua_pushcfunction(L, wrk_connect);
  lua_pushlightuserdata(L, context->tag_target);
  lua_pushcclosure(L, hail_tag, 1);
  lua_call(L, 3, 2);  // -> wrk (1), hail (2)

  const ScriptTarget& target = *context->target;
  lua_pushvalue(L, 1);
  set_string_field(L, "scheme", target.scheme, false);
  set_string_field(L, "host", target.host, false);
  set_string_field(L, "port", target.port, true);
  set_string_field(L, "method", target.method, false);
  set_string_field(L, "path", target.path, false);
  set_string_field(L, "body", target.body, true);
  lua_getfield(L, -1, "headers");
  for (const auto& [name, value] : target.headers) {
    lua_pushlstring(L, name.data(), name.size());
    lua_pushlstring(L, value.data(), value.size());
    lua_rawset(L, -3);
  }
  lua_settop(L, 2);

  // `require "wrk"` returns the same table, as in wrk (whose wrk.lua is a preloaded module).
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "wrk");
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "hail");
  lua_settop(L, 2);
  lua_setglobal(L, "hail");
  lua_setglobal(L, "wrk");
  return 0;
}

// LuaJIT names a file chunk by its path cut to its last ~55 bytes ("...s/x.lua:3: ") in every
// message and traceback; users must see which file failed, so messages get the whole path back.
std::string short_source(lua_State* L, const std::string& chunk) {
  std::string name;
  if (luaL_loadbuffer(L, "", 0, chunk.c_str()) == 0) {
    lua_Debug ar;
    if (lua_getinfo(L, ">S", &ar) != 0) name = ar.short_src;
  } else {
    lua_pop(L, 1);
  }
  return name;
}

void restore_path(std::string& message, const std::string& short_name, const std::string& path) {
  if (short_name.empty() || short_name == path) return;
  for (size_t at = message.find(short_name); at != std::string::npos;
       at = message.find(short_name, at + path.size())) {
    message.replace(at, short_name.size(), path);
  }
}

// Where in the user's script an error happened, and where it surfaced first.
struct Frames {
  std::string first;                 // "src:line" of the innermost Lua frame with a line
  std::string user;                  // "src:line" of the innermost frame in the script file itself
  std::vector<std::string> sources;  // short names of the Lua frames seen
};

Frames find_frames(lua_State* L, const char* script_chunk) {
  constexpr int kMaxLevels = 1000;  // a stack overflow has tens of thousands; the top is enough
  Frames frames;
  lua_Debug ar;
  for (int level = 1; level < kMaxLevels && lua_getstack(L, level, &ar) != 0; ++level) {
    if (lua_getinfo(L, "Sl", &ar) == 0 || ar.currentline <= 0) continue;
    std::string where = std::string(ar.short_src) + ":" + std::to_string(ar.currentline);
    if (frames.first.empty()) frames.first = where;
    if (frames.user.empty() && script_chunk != nullptr &&
        std::strcmp(ar.source, script_chunk) == 0) {
      frames.user = where;
    }
    if (std::find(frames.sources.begin(), frames.sources.end(), ar.short_src) ==
        frames.sources.end()) {
      frames.sources.emplace_back(ar.short_src);
    }
  }
  return frames;
}

// The "src:line" a Lua message starts with ("x.lua:12: attempt to ..."), or "" if none. Only the
// names of frames on the stack count: the runtime positions errors at one of them.
std::string_view leading_position(std::string_view message, const Frames& frames) {
  for (const std::string& source : frames.sources) {
    if (message.size() <= source.size() + 1 || message.substr(0, source.size()) != source ||
        message[source.size()] != ':') {
      continue;
    }
    size_t end = source.size() + 1;
    while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
    if (end > source.size() + 1 && message.substr(end, 2) == ": ") return message.substr(0, end);
  }
  return {};
}

// Whether a ":<line>: " position appears in the message (at its start, or after the prefix of an
// error from another chunk, such as "[hail wrk.lua]:62: ").
bool has_any_position(std::string_view message) {
  for (size_t colon = message.find(':'); colon != std::string_view::npos;
       colon = message.find(':', colon + 1)) {
    size_t end = colon + 1;
    while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
    if (end > colon + 1 && message.substr(end, 2) == ": ") return true;
  }
  return false;
}

// Runs where the error was raised, before unwinding, so the stack still shows the failing frame.
// Produces one line "file:line: message": errors raised from C (bad arguments, error(msg, 0))
// carry no position, so the innermost script frame's is put in front; an error positioned in
// another chunk (the bootstrap, a required module) gets the script line that led there appended.
int on_error(lua_State* L) {
  std::string message;
  if (lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER) {
    message = lua_tostring(L, 1);
  } else {
    message = std::string("(error object is a ") + luaL_typename(L, 1) + " value)";
  }
  // One line, whatever the message holds (require's errors embed "\n\t" before the file's).
  for (char& c : message) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  const char* chunk = lua_tostring(L, lua_upvalueindex(1));
  const Frames frames = find_frames(L, chunk);
  const std::string_view position = leading_position(message, frames);
  if (position.empty()) {
    const std::string& where = frames.user.empty() ? frames.first : frames.user;
    if (!where.empty()) message = where + ": " + message;
  } else if (!frames.user.empty() &&
             position.substr(0, position.rfind(':')) !=
                 std::string_view(frames.user).substr(0, frames.user.rfind(':'))) {
    message += " (from " + frames.user + ")";
  }
  if (chunk != nullptr && chunk[0] == '@') {
    restore_path(message, lua_tostring(L, lua_upvalueindex(2)), chunk + 1);
  }
  lua_pushlstring(L, message.data(), message.size());
  return 1;
}

// For errors the handler could not place in the script (see call_protected).
void add_function_position(std::string& message, const char* source, int line_defined) {
  const std::string where = std::string(source) + ":" + std::to_string(line_defined);
  if (message.find(std::string(source) + ":") != std::string::npos) return;
  if (has_any_position(message)) {
    message += " (from a tail call in the function at " + where + ")";
  } else {
    message = where + ": " + message + " (tail call in the function starting at this line)";
  }
}

}  // namespace

Result<lua_State*> open_state(const std::string& path, const ScriptTarget& target,
                              std::string** tag_target) {
  lua_State* L = luaL_newstate();
  if (L == nullptr) return make_error("cannot create a Lua state: out of memory");
  OpenContext context{&target, tag_target};
  if (lua_cpcall(L, open_libraries, &context) != 0) {
    std::string message = lua_tostring(L, -1) != nullptr ? lua_tostring(L, -1) : "unknown error";
    lua_close(L);
    return make_error("cannot set up the Lua state: " + message);
  }
  lua_settop(L, 0);
  const std::string chunk = "@" + path;
  const std::string short_name = short_source(L, chunk);
  lua_settop(L, 0);
  lua_pushlstring(L, chunk.data(), chunk.size());
  lua_pushlstring(L, short_name.data(), short_name.size());
  lua_pushcclosure(L, on_error, 2);  // kHandlerSlot
  if (path.empty()) return L;

  if (luaL_loadfile(L, path.c_str()) != 0) {
    std::string message = lua_tostring(L, -1) != nullptr ? lua_tostring(L, -1) : "unknown error";
    lua_close(L);
    restore_path(message, short_name, path);
    return make_error(message);
  }
  Status ran = call_protected(L, 0, 0);
  if (!ran) {
    lua_close(L);
    return ran.error();
  }
  return L;
}

void close_state(lua_State* L) {
  if (L != nullptr) lua_close(L);
}

Status call_protected(lua_State* L, int nargs, int nresults) {
  // A copy of a Lua callee stays below the call: if the error comes from a tail call
  // (`return hail.tag(...)`), no frame of the hook is left for the handler to name, and the
  // function's own position is the best there is.
  const int function = lua_gettop(L) - nargs;
  const bool keep = lua_iscfunction(L, function) == 0;
  if (keep) {
    lua_pushvalue(L, function);
    lua_insert(L, function);
  }
  if (lua_pcall(L, nargs, nresults, kHandlerSlot) == 0) {
    if (keep) lua_remove(L, function);
    return ok_status();
  }
  size_t length = 0;
  const char* text = lua_tolstring(L, -1, &length);
  std::string message = text != nullptr ? std::string(text, length) : "unknown Lua error";
  if (keep) {
    lua_pushvalue(L, function);
    lua_Debug ar;
    if (lua_getinfo(L, ">S", &ar) != 0 && ar.linedefined > 0) {
      // The whole path of a file chunk, as restore_path gave the message.
      add_function_position(message, ar.source[0] == '@' ? ar.source + 1 : ar.short_src,
                            ar.linedefined);
    }
  }
  lua_settop(L, function - 1);
  return make_error(std::move(message));
}

Status call_function(lua_State* L, lua_CFunction fn, const void* context, int nargs, int nresults) {
  lua_pushcfunction(L, fn);
  lua_insert(L, -(nargs + 1));
  // fn casts it back to the const type it was given as.
  lua_pushlightuserdata(L, const_cast<void*>(context));
  lua_insert(L, -(nargs + 1));
  return call_protected(L, nargs + 1, nresults);
}

void push_raw_global(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, LUA_GLOBALSINDEX);
}

bool global_is_function(lua_State* L, const char* name) {
  push_raw_global(L, name);
  const bool is_function = lua_isfunction(L, -1);
  lua_pop(L, 1);
  return is_function;
}

}  // namespace hail::script_internal
