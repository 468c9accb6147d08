#include <string>
#include <vector>

#include "script/lua_glue.h"
#include "script/script.h"

namespace hail {

using script_internal::call_function;
using script_internal::kHandlerSlot;

namespace {

int set_wrk_addrs(lua_State* L) {
  const auto* addrs = static_cast<const std::vector<SocketAddress>*>(lua_touserdata(L, 1));
  lua_getglobal(L, "wrk");
  lua_createtable(L, static_cast<int>(addrs->size()), 0);
  for (size_t i = 0; i < addrs->size(); ++i) {
    script_internal::push_address(L, (*addrs)[i]);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_setfield(L, -2, "addrs");
  return 0;
}

int run_wrk_setup(lua_State* L) {
  const auto* thread =
      static_cast<const std::shared_ptr<script_internal::ThreadShared>*>(lua_touserdata(L, 1));
  lua_getglobal(L, "wrk");
  lua_getfield(L, -1, "setup");
  script_internal::push_thread(L, *thread);
  lua_call(L, 1, 0);
  return 0;
}

void set_number(lua_State* L, const char* key, uint64_t value) {
  lua_pushnumber(L, static_cast<double>(value));
  lua_setfield(L, -2, key);
}

// Arguments: the summary, then the two statistics objects (anchored by the caller).
int run_done(lua_State* L) {
  const auto* summary = static_cast<const ScriptSummary*>(lua_touserdata(L, 1));
  lua_getglobal(L, "done");
  lua_createtable(L, 0, 4);
  set_number(L, "duration", summary->duration_us);
  set_number(L, "requests", summary->requests);
  set_number(L, "bytes", summary->bytes);
  lua_createtable(L, 0, 5);
  set_number(L, "connect", summary->connect);
  set_number(L, "read", summary->read);
  set_number(L, "write", summary->write);
  set_number(L, "status", summary->status);
  set_number(L, "timeout", summary->timeout);
  lua_setfield(L, -2, "errors");
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_call(L, 3, 0);
  return 0;
}

}  // namespace

MainScript::~MainScript() {
  script_internal::close_state(state_);
}

Result<std::unique_ptr<MainScript>> MainScript::load(const std::string& path,
                                                     const ScriptTarget& target,
                                                     std::vector<SocketAddress> addrs) {
  std::unique_ptr<MainScript> script(new MainScript());
  auto state = script_internal::open_state(path, target, nullptr);
  if (!state) return state.error();
  script->state_ = *state;
  lua_settop(script->state_, kHandlerSlot);
  Status set = call_function(script->state_, set_wrk_addrs, &addrs, 0, 0);
  if (!set) return set.error();
  return script;
}

Status MainScript::setup(ThreadScript& thread, uint32_t index) {
  thread.shared_->index = index;
  Status result = call_function(state_, run_wrk_setup, &thread.shared_, 0, 0);
  lua_settop(state_, kHandlerSlot);
  return result;
}

bool MainScript::has_done() const {
  return script_internal::global_is_function(state_, "done");
}

Status MainScript::done(const ScriptSummary& summary, const StatsView& latency,
                        const StatsView& requests) {
  lua_State* L = state_;
  lua_settop(L, kHandlerSlot);
  // Kept on this stack (not only as call arguments) so they cannot be collected before their
  // pointers are cleared below, whatever done() does with them.
  const StatsView** latency_slot = script_internal::push_stats(L, &latency);
  const StatsView** requests_slot = script_internal::push_stats(L, &requests);
  lua_pushvalue(L, kHandlerSlot + 1);
  lua_pushvalue(L, kHandlerSlot + 2);
  Status result = call_function(L, run_done, &summary, 2, 0);
  *latency_slot = nullptr;
  *requests_slot = nullptr;
  lua_settop(L, kHandlerSlot);
  return result;
}

}  // namespace hail
