-- Runtime errors at known lines (the tests check file:line); keep the line numbers stable.

function request()
  return undefined_function()
end

function response(status, headers, body)
  error("bad status " .. status)
end

function delay()
  error("raised without a position", 0)
end

function init(args)
  if args[1] == "fail" then
    hail.tag("")
  end
end
