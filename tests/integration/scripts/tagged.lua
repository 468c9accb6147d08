-- hail's extension: hail.tag() names the requests of a request() call; the report breaks
-- latency and statuses down per tag. Every third request is a 404.
local n = 0

function request()
   n = n + 1
   if n % 3 == 0 then
      return hail.tag("missing", wrk.format(nil, "/nothing-here"))
   end
   return hail.tag("file", wrk.format(nil, "/1k.bin"))
end
