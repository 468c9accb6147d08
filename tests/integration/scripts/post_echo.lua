-- POST with a body and a Content-Type (wrk's post.lua pattern); response() checks that /echo
-- answered the very body that was sent, done() reports how many did.
wrk.method = "POST"
wrk.body   = "name=hail&kind=load"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"

echoed = 0
mismatched = 0

function response(status, headers, body)
   if status == 200 and body == wrk.body then
      echoed = echoed + 1
   else
      mismatched = mismatched + 1
   end
end

local threads = {}
function setup(thread)
   table.insert(threads, thread)
end

function done(summary, latency, requests)
   local e, m = 0, 0
   for _, t in ipairs(threads) do
      e = e + t:get("echoed")
      m = m + t:get("mismatched")
   end
   io.write(string.format("echoed %d mismatched %d requests %d\n", e, m, summary.requests))
end
