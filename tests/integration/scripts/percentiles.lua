-- done() prints latency percentiles and the stats objects' fields (wrk's report.lua pattern).
done = function(summary, latency, requests)
   io.write("------------------------------\n")
   for _, p in pairs({ 50, 90, 99, 99.999 }) do
      n = latency:percentile(p)
      io.write(string.format("%g%%,%d\n", p, n))
   end
   io.write(string.format("min,%d\nmax,%d\nmean,%f\nstdev,%f\n", latency.min, latency.max,
                          latency.mean, latency.stdev))
   io.write(string.format("requests,%d\nbytes,%d\nduration,%d\n", summary.requests, summary.bytes,
                          summary.duration))
   io.write(string.format("errors,%d,%d,%d,%d,%d\n", summary.errors.connect, summary.errors.read,
                          summary.errors.write, summary.errors.status, summary.errors.timeout))
   local total = 0
   for i = 1, #latency do
      local value, count = latency(i)
      total = total + count
   end
   io.write(string.format("rate_samples,%d\n", requests.max))
end
