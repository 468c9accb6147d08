-- thread:set / thread:get between the main state and the thread states: nil, booleans, numbers,
-- strings (all bytes) and tables of those, nested, keys included.

local threads = {}

function describe(value)
  if type(value) == "string" then
    return '"' .. (value:gsub("%z", "<NUL>")) .. '"'
  end
  if type(value) ~= "table" then
    return tostring(value)
  end
  local keys = {}
  for key in pairs(value) do
    keys[#keys + 1] = key
  end
  table.sort(keys, function(a, b) return describe(a) < describe(b) end)
  local parts = {}
  for _, key in ipairs(keys) do
    parts[#parts + 1] = "[" .. describe(key) .. "]=" .. describe(value[key])
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

function setup(thread)
  threads[#threads + 1] = thread
  thread:set("flag", true)
  thread:set("off", false)
  thread:set("count", 42.5)
  thread:set("name", "a\0b")
  thread:set("gone", "soon")
  thread:set("gone", nil)
  thread:set("nested", { outer = { inner = { leaf = "deep" } }, "first", 2, [true] = "yes" })
end

function init(args)
  echo = { from = "thread", list = { 1, 2, 3 }, [2.5] = false }
  helper = function() end
end

function request()
  local seen = { flag = flag, off = off, count = count, name = name, gone = gone, nested = nested }
  return describe(seen)
end

function done()
  for _, thread in ipairs(threads) do
    print(describe(thread:get("echo")))
    print(type(thread:get("missing")))
    print(pcall(thread.get, thread, "helper"))
  end
end
