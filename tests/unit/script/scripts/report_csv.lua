-- A custom report, as wrk's report.lua: done() writes latency percentiles as CSV with io.write.

done = function(summary, latency, requests)
  io.write("percentile,latency_us\n")
  for _, p in ipairs({ 50, 90, 99, 99.999 }) do
    io.write(string.format("%g,%d\n", p, latency:percentile(p)))
  end
end
