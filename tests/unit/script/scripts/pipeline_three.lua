-- Pipelining, as wrk's pipeline.lua: init() renders three requests once and request() returns
-- them back to back, so one write carries three requests.

function init(args)
  local batch = {}
  for _, query in ipairs({ "/?one", "/?two", "/?three" }) do
    batch[#batch + 1] = wrk.format(nil, query)
  end
  pipelined = table.concat(batch)
end

function request()
  return pipelined
end
