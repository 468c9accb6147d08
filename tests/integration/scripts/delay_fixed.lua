-- delay() before each request (wrk's delay.lua pattern, with a fixed pause to be measurable).
function delay()
   return 50
end
