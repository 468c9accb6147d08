-- Address choice in setup(), as wrk's addr.lua: resolve the target once, keep the addresses that
-- accept a connection, give each thread one of them at random.

local reachable = nil

function setup(thread)
  if reachable == nil then
    reachable = wrk.lookup(wrk.host, wrk.port or "http")
    for i = #reachable, 1, -1 do
      if not wrk.connect(reachable[i]) then
        table.remove(reachable, i)
      end
    end
  end
  thread.addr = reachable[math.random(#reachable)]
end

function init(args)
  print(("thread addr: %s"):format(tostring(wrk.thread.addr)))
end
