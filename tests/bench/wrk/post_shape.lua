-- post_shape.lua: like post_distinct.lua, but what changes on every request is
-- the model's shape (layers, hidden size and MLP width of a custom ~70B model),
-- so each request misses both the plan cache and the search memo: the
-- planner's whole layout search every time (the cold path).
-- n counts requests per thread from the thread's base (a global: thread:set
-- sets the thread's global); the shape is 60-99 layers, hidden 8192-12160
-- (a multiple of the 64 heads), MLP width 28672 and up: all distinct.
local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
local template = f:read("*a")
f:close()
local counter = 0
base = 0

function setup(thread)
  base = base + 1
  thread:set("base", base * 1000000)
end

function request()
  local n = base + counter
  counter = counter + 1
  local layers = 60 + n % 40
  local hidden = 8192 + 128 * (math.floor(n / 40) % 32)
  local ffn = 28672 + math.floor(n / 1280)
  local body = template:gsub('"layers":%s*%d+', '"layers":' .. layers)
  body = body:gsub('"hidden":%s*%d+', '"hidden":' .. hidden)
  body = body:gsub('"ffn_hidden":%s*%d+', '"ffn_hidden":' .. ffn)
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
