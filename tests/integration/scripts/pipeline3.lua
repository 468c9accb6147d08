-- Three requests concatenated in one request() result are pipelined (wrk's pipeline.lua
-- pattern): a connection sends all three before the first answer.
init = function(args)
   local r = {}
   r[1] = wrk.format(nil, "/100.bin")
   r[2] = wrk.format(nil, "/1k.bin")
   r[3] = wrk.format(nil, "/16k.bin")
   req = table.concat(r)
end

request = function()
   return req
end
