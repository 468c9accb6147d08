-- wrk.thread:stop(), as wrk's stop.lua: the thread stops itself after a number of responses
-- (args[1] after `--`, 100 by default).

local limit = 100
local seen = 0

function init(args)
  if args[1] then
    limit = tonumber(args[1])
  end
end

function response()
  seen = seen + 1
  if seen == limit then
    wrk.thread:stop()
  end
end
