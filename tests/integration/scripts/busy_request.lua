-- Burns about a millisecond of CPU per request: hail itself becomes the limit.
request = function()
  local x = 0
  local t = os.clock()
  while os.clock() - t < 0.001 do x = x + 1 end
  return wrk.format()
end
