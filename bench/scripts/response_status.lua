-- bench/compare.py scenario lua:response_status: response() sees every response's status,
-- headers and body (wrk then parses and hands over every header and the whole body).
local ok, other = 0, 0

function response(status, headers, body)
   if status == 200 and #body == 1024 then
      ok = ok + 1
   else
      other = other + 1
   end
end
