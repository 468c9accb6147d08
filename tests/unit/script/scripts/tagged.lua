-- hail.tag: of every three requests the first is a tagged login (inline form), the second a
-- tagged browse (statement form), the third untagged.

n = 0

function request()
  n = n + 1
  if n % 3 == 1 then
    return hail.tag("login", wrk.format("POST", "/login"))
  end
  if n % 3 == 2 then
    hail.tag("browse")
  end
  return wrk.format(nil, "/items/" .. n)
end
