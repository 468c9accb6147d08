-- wrk.thread:stop() after a number of responses (wrk's stop.lua pattern).
local counter = 1
local limit = 100

function init(args)
   if args[1] then limit = tonumber(args[1]) end
end

function response()
   if counter == limit then
      wrk.thread:stop()
   end
   counter = counter + 1
end
