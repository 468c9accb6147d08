#include <cmath>
#include <string>

#include "script/lua_glue.h"
#include "script/script.h"

namespace hail {

using script_internal::call_function;
using script_internal::call_protected;
using script_internal::kHandlerSlot;
using script_internal::kRequestSlot;
using script_internal::kStaticRequestSlot;
using script_internal::push_raw_global;

namespace {

int set_wrk_thread(lua_State* L) {
  const auto* thread =
      static_cast<const std::shared_ptr<script_internal::ThreadShared>*>(lua_touserdata(L, 1));
  lua_getglobal(L, "wrk");
  script_internal::push_thread(L, *thread);
  lua_setfield(L, -2, "thread");
  return 0;
}

int run_wrk_init(lua_State* L) {
  const auto* args = static_cast<const std::vector<std::string>*>(lua_touserdata(L, 1));
  lua_getglobal(L, "wrk");
  lua_getfield(L, -1, "init");
  lua_createtable(L, static_cast<int>(args->size()), 1);
  for (size_t i = 0; i < args->size(); ++i) {
    lua_pushlstring(L, (*args)[i].data(), (*args)[i].size());
    lua_rawseti(L, -2, static_cast<int>(i));  // args[0] is the URL, as in wrk
  }
  lua_call(L, 1, 0);
  return 0;
}

int run_wrk_request(lua_State* L) {
  lua_getglobal(L, "wrk");
  lua_getfield(L, -1, "request");
  lua_call(L, 0, 1);
  return 1;
}

}  // namespace

ThreadScript::ThreadScript() : shared_(std::make_shared<script_internal::ThreadShared>()) {}

ThreadScript::~ThreadScript() {
  shared_->state = nullptr;
  script_internal::close_state(state_);
}

Result<std::unique_ptr<ThreadScript>> ThreadScript::load(const std::string& path,
                                                         const ScriptTarget& target) {
  std::unique_ptr<ThreadScript> script(new ThreadScript());
  auto state = script_internal::open_state(path, target, &script->tag_target_);
  if (!state) return state.error();
  lua_State* L = *state;
  script->state_ = L;
  script->shared_->state = L;
  lua_settop(L, kHandlerSlot);
  lua_pushnil(L);  // kRequestSlot
  lua_pushnil(L);  // kStaticRequestSlot
  // wrk sets wrk.thread after the script's top level ran, before setup() and init().
  Status set = call_function(L, set_wrk_thread, &script->shared_, 0, 0);
  if (!set) return set.error();
  return script;
}

Status ThreadScript::init(const std::vector<std::string>& args) {
  init_tag_.clear();
  tag_target_ = &init_tag_;
  Status result = call_function(state_, run_wrk_init, &args, 0, 0);
  tag_target_ = nullptr;
  static_rendered_ = false;
  last_static_ = true;
  lua_settop(state_, kStaticRequestSlot);
  return result;
}

bool ThreadScript::global_is_function(const char* name) const {
  return script_internal::global_is_function(state_, name);
}

bool ThreadScript::is_static() const {
  return !global_is_function("request");
}

bool ThreadScript::wants_response() const {
  return global_is_function("response");
}

bool ThreadScript::has_delay() const {
  return global_is_function("delay");
}

Result<std::string_view> ThreadScript::take_request(int slot) {
  lua_State* L = state_;
  const int type = lua_type(L, -1);
  size_t length = 0;
  const char* bytes = type == LUA_TSTRING ? lua_tolstring(L, -1, &length) : nullptr;
  if (bytes == nullptr || length == 0) {
    std::string got = bytes == nullptr ? std::string("a ") + lua_typename(L, type) + " value"
                                       : std::string("an empty string");
    lua_settop(L, kStaticRequestSlot);
    push_raw_global(L, "request");
    lua_Debug ar;
    std::string where;
    if (lua_isfunction(L, -1) && lua_getinfo(L, ">S", &ar) != 0 && ar.linedefined > 0) {
      where = std::string(ar.short_src) + ":" + std::to_string(ar.linedefined) + ": ";
    }
    lua_settop(L, kStaticRequestSlot);
    return make_error(where + "request() returned " + got + ", not an HTTP request string");
  }
  // The string stays referenced from its slot, so the view outlives the Lua call.
  lua_replace(L, slot);
  lua_settop(L, kStaticRequestSlot);
  return std::string_view(bytes, length);
}

Result<std::string_view> ThreadScript::request() {
  lua_State* L = state_;
  push_raw_global(L, "request");
  if (lua_isfunction(L, -1)) {
    last_static_ = false;
    request_tag_.clear();
    tag_target_ = &request_tag_;
    Status called = call_protected(L, 0, 1);
    tag_target_ = nullptr;
    if (!called) return called.error();
    return take_request(kRequestSlot);
  }
  lua_pop(L, 1);
  last_static_ = true;
  if (static_rendered_) return static_request_;
  // wrk takes wrk.request() once per thread and sends those bytes for the whole run.
  tag_target_ = &init_tag_;
  Status called = call_function(L, run_wrk_request, nullptr, 0, 1);
  tag_target_ = nullptr;
  if (!called) return called.error();
  auto taken = take_request(kStaticRequestSlot);
  if (!taken) return taken;
  static_request_ = *taken;
  static_rendered_ = true;
  return static_request_;
}

std::string_view ThreadScript::tag() const {
  return last_static_ ? std::string_view(init_tag_) : std::string_view(request_tag_);
}

Status ThreadScript::response(int status, const ScriptResponseHeader* headers, size_t count,
                              std::string_view body) {
  lua_State* L = state_;
  push_raw_global(L, "response");
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    return ok_status();
  }
  lua_pushinteger(L, status);
  lua_createtable(L, 0, static_cast<int>(count));
  for (size_t i = 0; i < count; ++i) {
    lua_pushlstring(L, headers[i].name.data(), headers[i].name.size());
    lua_pushlstring(L, headers[i].value.data(), headers[i].value.size());
    lua_rawset(L, -3);
  }
  lua_pushlstring(L, body.data(), body.size());
  return call_protected(L, 3, 0);
}

Result<double> ThreadScript::delay_ms() {
  lua_State* L = state_;
  push_raw_global(L, "delay");
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    return 0.0;
  }
  Status called = call_protected(L, 0, 1);
  if (!called) return called.error();
  const double delay = lua_tonumber(L, -1);
  lua_pop(L, 1);
  if (std::isinf(delay) && delay > 0) return make_error("delay() returned an infinite delay");
  return delay > 0 ? delay : 0.0;
}

bool ThreadScript::stop_requested() const {
  return shared_->stop.load(std::memory_order_relaxed);
}

std::optional<SocketAddress> ThreadScript::address() const {
  return shared_->address;
}

uint32_t ThreadScript::index() const {
  return shared_->index;
}

}  // namespace hail
