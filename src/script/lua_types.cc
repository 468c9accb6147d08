#include <netdb.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "script/lua_glue.h"

namespace hail::script_internal {
namespace {

// wrk's metatable names, so scripts that check them see the same.
constexpr const char* kAddrType = "wrk.addr";
constexpr const char* kThreadType = "wrk.thread";
constexpr const char* kStatsType = "wrk.stats";

using ThreadRef = std::shared_ptr<ThreadShared>;

// wrk.addr holds a SocketAddress by value (trivially copyable, so no __gc).

SocketAddress* check_address(lua_State* L, int index) {
  return static_cast<SocketAddress*>(luaL_checkudata(L, index, kAddrType));
}

// "ip:port" from getnameinfo, as wrk prints it: IPv6 without brackets ("::1:8080").
int address_tostring(lua_State* L) {
  const SocketAddress* address = check_address(L, 1);
  if (address->family() == AF_UNIX) {
    const auto* un = reinterpret_cast<const sockaddr_un*>(&address->storage);
    lua_pushfstring(L, "unix:%s", un->sun_path);
    return 1;
  }
  char host[NI_MAXHOST];
  char service[NI_MAXSERV];
  const int rc =
      getnameinfo(reinterpret_cast<const sockaddr*>(&address->storage), address->len, host,
                  sizeof host, service, sizeof service, NI_NUMERICHOST | NI_NUMERICSERV);
  if (rc != 0) return luaL_error(L, "addr tostring failed %s", gai_strerror(rc));
  lua_pushfstring(L, "%s:%s", host, service);
  return 1;
}

// wrk.thread holds a ThreadRef, emptied (not destroyed) by __gc so that a second __gc call from a
// script (getmetatable(t).__gc(t)) is harmless; an empty shared_ptr owns nothing to leak.

ThreadShared* check_thread(lua_State* L) {
  auto* ref = static_cast<ThreadRef*>(luaL_checkudata(L, 1, kThreadType));
  if (!*ref) luaL_error(L, "the thread object was collected");
  return ref->get();
}

lua_State* thread_state(lua_State* L, ThreadShared* thread) {
  if (thread->state == nullptr) luaL_error(L, "the thread's script state no longer exists");
  return thread->state;
}

// Checks what thread:get/set would copy, before the destination is touched, so that a refusal
// leaves both states as they were. Returns nullptr or a static reason.
const char* transfer_problem(lua_State* src, int index, int depth, const char** type_name) {
  switch (lua_type(src, index)) {
    case LUA_TNIL:
    case LUA_TBOOLEAN:
    case LUA_TNUMBER:
    case LUA_TSTRING:
      return nullptr;
    case LUA_TTABLE:
      break;
    default:
      *type_name = luaL_typename(src, index);
      return "type";
  }
  if (depth >= kMaxCopyDepth || lua_checkstack(src, 3) == 0) return "depth";
  lua_pushnil(src);
  while (lua_next(src, index) != 0) {
    const int value = lua_gettop(src);
    const char* problem = transfer_problem(src, value - 1, depth + 1, type_name);
    if (problem == nullptr) problem = transfer_problem(src, value, depth + 1, type_name);
    if (problem != nullptr) {
      lua_pop(src, 2);
      return problem;
    }
    lua_pop(src, 1);
  }
  return nullptr;
}

// wrk's script_copy_value: nil, booleans, numbers, strings (all bytes) and tables of those, keys
// included. Works when src == dst (wrk.thread:set from the thread's own state): every index is
// absolute and each copied pair is consumed before lua_next needs its key on top again.
void copy_value(lua_State* src, int index, lua_State* dst) {
  switch (lua_type(src, index)) {
    case LUA_TBOOLEAN:
      lua_pushboolean(dst, lua_toboolean(src, index));
      return;
    case LUA_TNUMBER:
      lua_pushnumber(dst, lua_tonumber(src, index));
      return;
    case LUA_TSTRING: {
      size_t length = 0;
      const char* bytes = lua_tolstring(src, index, &length);
      lua_pushlstring(dst, bytes, length);
      return;
    }
    case LUA_TTABLE:
      break;
    default:
      lua_pushnil(dst);
      return;
  }
  lua_checkstack(dst, 4);
  lua_checkstack(src, 3);
  lua_newtable(dst);
  const int table = lua_gettop(dst);
  lua_pushnil(src);
  while (lua_next(src, index) != 0) {
    const int value = lua_gettop(src);
    copy_value(src, value - 1, dst);
    copy_value(src, value, dst);
    lua_rawset(dst, table);
    lua_pop(src, 1);
  }
}

void raise_transfer_error(lua_State* L, const char* problem, const char* type_name) {
  if (std::strcmp(problem, "type") == 0) {
    luaL_error(L, "cannot transfer '%s' to thread", type_name);
  }
  luaL_error(L, "cannot transfer tables nested more than %d levels deep (a cycle?)", kMaxCopyDepth);
}

// thread:get(name): a copy of the thread state's global.
int thread_get(lua_State* L) {
  ThreadShared* thread = check_thread(L);
  size_t length = 0;
  const char* name = luaL_checklstring(L, 2, &length);
  lua_State* src = thread_state(L, thread);
  if (src == L) {  // the thread's own object: wrk hands back the global itself
    lua_pushlstring(L, name, length);
    lua_rawget(L, LUA_GLOBALSINDEX);
    return 1;
  }
  lua_checkstack(src, 2);
  lua_pushlstring(src, name, length);
  lua_rawget(src, LUA_GLOBALSINDEX);
  const int index = lua_gettop(src);
  const char* type_name = "?";
  const char* problem = transfer_problem(src, index, 0, &type_name);
  if (problem != nullptr) {
    lua_pop(src, 1);
    raise_transfer_error(L, problem, type_name);
  }
  copy_value(src, index, L);
  lua_pop(src, 1);
  return 1;
}

// thread:set(name, value): a copy of value becomes the thread state's global.
int thread_set(lua_State* L) {
  ThreadShared* thread = check_thread(L);
  size_t length = 0;
  const char* name = luaL_checklstring(L, 2, &length);
  lua_settop(L, 3);
  lua_State* dst = thread_state(L, thread);
  const char* type_name = "?";
  const char* problem = transfer_problem(L, 3, 0, &type_name);
  if (problem != nullptr) raise_transfer_error(L, problem, type_name);
  lua_checkstack(dst, 2);
  lua_pushlstring(dst, name, length);
  copy_value(L, 3, dst);
  lua_rawset(dst, LUA_GLOBALSINDEX);
  return 0;
}

int thread_stop(lua_State* L) {
  check_thread(L)->stop.store(true, std::memory_order_relaxed);
  return 0;
}

int thread_index(lua_State* L) {
  ThreadShared* thread = check_thread(L);
  const char* key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
  if (std::strcmp(key, "get") == 0) {
    lua_pushcfunction(L, thread_get);
  } else if (std::strcmp(key, "set") == 0) {
    lua_pushcfunction(L, thread_set);
  } else if (std::strcmp(key, "stop") == 0) {
    lua_pushcfunction(L, thread_stop);
  } else if (std::strcmp(key, "addr") == 0 && thread->address) {
    push_address(L, *thread->address);  // a copy, as wrk's clone
  } else {
    lua_pushnil(L);
  }
  return 1;
}

int thread_newindex(lua_State* L) {
  ThreadShared* thread = check_thread(L);
  const char* key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?";
  if (std::strcmp(key, "addr") != 0) return luaL_error(L, "cannot set '%s' on thread", key);
  if (lua_isnil(L, 3)) {  // wrk.addrs can be empty in hail (no TCP address): nothing to connect to
    thread->address.reset();
  } else {
    thread->address = *check_address(L, 3);
  }
  return 0;
}

int thread_gc(lua_State* L) {
  static_cast<ThreadRef*>(luaL_checkudata(L, 1, kThreadType))->reset();
  return 0;
}

// wrk.stats holds a StatsView pointer, cleared once done() returned.

const StatsView* check_stats(lua_State* L) {
  auto* slot = static_cast<const StatsView**>(luaL_checkudata(L, 1, kStatsType));
  if (*slot == nullptr) luaL_error(L, "statistics are only available during done()");
  return *slot;
}

int stats_percentile(lua_State* L) {
  const StatsView* stats = check_stats(L);
  lua_pushnumber(L, stats->percentile(luaL_checknumber(L, 2)));
  return 1;
}

// latency(i): the i-th distinct value (1-based) and its count. Out of range, wrk's loop leaves
// (0, number of distinct values); kept.
int stats_call(lua_State* L) {
  const StatsView* stats = check_stats(L);
  const double wanted = lua_tonumber(L, 2);
  const size_t distinct = stats->distinct();
  if (!(wanted >= 1) || wanted >= static_cast<double>(distinct) + 1) {
    lua_pushnumber(L, 0);
    lua_pushnumber(L, static_cast<double>(distinct));
    return 2;
  }
  const auto [value, count] = stats->at(static_cast<size_t>(wanted) - 1);
  lua_pushnumber(L, value);
  lua_pushnumber(L, static_cast<double>(count));
  return 2;
}

int stats_len(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(check_stats(L)->distinct()));
  return 1;
}

int stats_index(lua_State* L) {
  const StatsView* stats = check_stats(L);
  const char* key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
  if (std::strcmp(key, "min") == 0) {
    lua_pushnumber(L, stats->min());
  } else if (std::strcmp(key, "max") == 0) {
    lua_pushnumber(L, stats->max());
  } else if (std::strcmp(key, "mean") == 0) {
    lua_pushnumber(L, stats->mean());
  } else if (std::strcmp(key, "stdev") == 0) {
    lua_pushnumber(L, stats->stdev());
  } else if (std::strcmp(key, "percentile") == 0) {
    lua_pushcfunction(L, stats_percentile);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

void new_type(lua_State* L, const char* name, const luaL_Reg* methods) {
  luaL_newmetatable(L, name);
  luaL_register(L, nullptr, methods);
  lua_pop(L, 1);
}

}  // namespace

void register_types(lua_State* L) {
  static const luaL_Reg kAddrMethods[] = {{"__tostring", address_tostring}, {nullptr, nullptr}};
  static const luaL_Reg kThreadMethods[] = {{"__index", thread_index},
                                            {"__newindex", thread_newindex},
                                            {"__gc", thread_gc},
                                            {nullptr, nullptr}};
  static const luaL_Reg kStatsMethods[] = {
      {"__call", stats_call}, {"__index", stats_index}, {"__len", stats_len}, {nullptr, nullptr}};
  new_type(L, kAddrType, kAddrMethods);
  new_type(L, kThreadType, kThreadMethods);
  new_type(L, kStatsType, kStatsMethods);
}

// wrk.lookup(host, service): every TCP address getaddrinfo gives, as addr objects. wrk exits on a
// failure; a library cannot, so it is a Lua error the script may pcall.
int wrk_lookup(lua_State* L) {
  const char* host = lua_tostring(L, 1);
  const char* service = lua_tostring(L, 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host, service, &hints, &found);
  if (rc != 0) {
    return luaL_error(L, "unable to resolve %s:%s %s", host != nullptr ? host : "nil",
                      service != nullptr ? service : "nil", gai_strerror(rc));
  }
  std::vector<SocketAddress> addresses;
  for (const addrinfo* it = found; it != nullptr; it = it->ai_next) {
    if (it->ai_addrlen > sizeof(sockaddr_storage)) continue;
    SocketAddress address;
    std::memcpy(&address.storage, it->ai_addr, it->ai_addrlen);
    address.len = it->ai_addrlen;
    addresses.push_back(address);
  }
  freeaddrinfo(found);
  lua_createtable(L, static_cast<int>(addresses.size()), 0);
  for (size_t i = 0; i < addresses.size(); ++i) {
    push_address(L, addresses[i]);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}

// wrk.connect(addr): whether a blocking connect() succeeds.
int wrk_connect(lua_State* L) {
  const SocketAddress* address = check_address(L, 1);
  bool connected = false;
  const int fd = socket(address->family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    connected =
        connect(fd, reinterpret_cast<const sockaddr*>(&address->storage), address->len) == 0;
    close(fd);
  }
  lua_pushboolean(L, connected);
  return 1;
}

void push_address(lua_State* L, const SocketAddress& address) {
  void* memory = lua_newuserdata(L, sizeof(SocketAddress));
  new (memory) SocketAddress(address);
  luaL_getmetatable(L, kAddrType);
  lua_setmetatable(L, -2);
}

void push_thread(lua_State* L, const std::shared_ptr<ThreadShared>& thread) {
  void* memory = lua_newuserdata(L, sizeof(ThreadRef));
  new (memory) ThreadRef(thread);
  luaL_getmetatable(L, kThreadType);
  lua_setmetatable(L, -2);
}

const StatsView** push_stats(lua_State* L, const StatsView* view) {
  auto** slot = static_cast<const StatsView**>(lua_newuserdata(L, sizeof(const StatsView*)));
  *slot = view;
  luaL_getmetatable(L, kStatsType);
  lua_setmetatable(L, -2);
  return slot;
}

}  // namespace hail::script_internal
