-- A think time before each request, as wrk's delay.lua: 10 to 50 ms at random.

function delay()
  return math.random(10, 50)
end
