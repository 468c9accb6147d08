-- A runtime error inside response() after a few responses.
local n = 0
function response(status, headers, body)
   n = n + 1
   if n == 5 then
      local t = nil
      return t.field
   end
end
