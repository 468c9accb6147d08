-- Response handling, as wrk's auth.lua: the first 200 answer's X-Token header is kept and sent
-- with every later request, which then goes to the protected path.

token = nil
target = "/login"

function request()
  return wrk.format("GET", target)
end

function response(status, headers, body)
  if token == nil and status == 200 then
    token = headers["X-Token"]
    target = "/private"
    wrk.headers["X-Token"] = token
  end
end
