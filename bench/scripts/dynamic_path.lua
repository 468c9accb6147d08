-- bench/compare.py scenario lua:dynamic_path: request() builds every request anew (a query string
-- that changes per request on the 1 KiB file), the way users vary URLs in wrk scripts.
local counter = 0

function request()
   counter = counter + 1
   return wrk.format(nil, "/1k.bin?id=" .. counter)
end
