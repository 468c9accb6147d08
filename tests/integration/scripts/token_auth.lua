-- The first response's header becomes a header of every later request (wrk's auth.lua pattern):
-- nginx's Content-Length of /100.bin ("100") is the "token", /1k.bin the resource.
token = nil
path  = "/100.bin"

request = function()
   return wrk.format("GET", path)
end

response = function(status, headers, body)
   if not token and status == 200 then
      token = headers["Content-Length"]
      path  = "/1k.bin"
      wrk.headers["X-Hail-Test"] = token
   end
end
