-- Per-thread state through setup(), thread:set()/thread:get() (wrk's setup.lua pattern).
local counter = 1
local threads = {}

function setup(thread)
   thread:set("id", counter)
   thread:set("config", { name = "t" .. counter, flags = { true, false }, ratio = 0.5 })
   table.insert(threads, thread)
   counter = counter + 1
end

function init(args)
   requests  = 0
   responses = 0
   print(string.format("thread %d created (%s, %s)", id, config.name, tostring(config.flags[1])))
end

function request()
   requests = requests + 1
   return wrk.request()
end

function response(status, headers, body)
   responses = responses + 1
end

function done(summary, latency, requests)
   for index, thread in ipairs(threads) do
      local id        = thread:get("id")
      local requests  = thread:get("requests")
      local responses = thread:get("responses")
      print(string.format("thread %d made %d requests and got %d responses", id, requests, responses))
   end
end
