-- done(summary, latency, requests): every field and method of the summary table and of the
-- statistics objects, printed one per line.

local kept = nil

function done(summary, latency, requests)
  if kept then
    print("after: " .. select(2, pcall(function() return kept.min end)))
    return
  end
  kept = latency
  print(("summary %d %d %d"):format(summary.duration, summary.requests, summary.bytes))
  local e = summary.errors
  print(("errors %d %d %d %d %d"):format(e.connect, e.read, e.write, e.status, e.timeout))
  print(("latency %g %g %g %g"):format(latency.min, latency.max, latency.mean, latency.stdev))
  print(("p50 %g p99 %g count %d"):format(latency:percentile(50), latency:percentile(99), #latency))
  for i = 1, #latency do
    print(("value %g %d"):format(latency(i)))
  end
  print(("outside %g %d"):format(latency(#latency + 1)))
  print(("requests %g %g %d"):format(requests.min, requests.max, #requests))
  print("unknown " .. tostring(latency.nothing))
end
