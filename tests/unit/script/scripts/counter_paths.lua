-- A dynamic request per call, as wrk's counter.lua: the path and an X-Counter header follow a
-- per-thread counter (every thread has its own Lua state, hence its own counter).

sent = 0

function request()
  local path = "/" .. sent
  wrk.headers["X-Counter"] = sent
  sent = sent + 1
  return wrk.format(nil, path)
end
