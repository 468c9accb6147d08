-- A dynamic path and header per request (wrk's counter.lua pattern): nginx logs each path once.
counter = 0

function request()
   local path = "/c" .. counter
   wrk.headers["X-Hail-Test"] = counter
   counter = counter + 1
   return wrk.format(nil, path)
end
