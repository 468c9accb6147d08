-- setup()-time data passing, as wrk's setup.lua: every thread gets an id through thread:set,
-- counts its requests and responses, and done() reads the counts back with thread:get.

local next_id = 1
local all_threads = {}

function setup(thread)
  thread:set("id", next_id)
  all_threads[#all_threads + 1] = thread
  next_id = next_id + 1
end

function init(args)
  requests = 0
  responses = 0
  print(("thread %d created"):format(id))
end

function request()
  requests = requests + 1
  return wrk.request()
end

function response(status, headers, body)
  responses = responses + 1
end

function done(summary, latency, requests)
  for _, thread in ipairs(all_threads) do
    local line = "thread %d made %d requests and got %d responses"
    print(line:format(thread:get("id"), thread:get("requests"), thread:get("responses")))
  end
end
