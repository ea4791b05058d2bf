-- post_distinct.lua: like post.lua, but every request carries a body never
-- sent before (tokens_b counts up per thread), so each one misses the
-- server's plan cache (the layout search may come from the search memo: only
-- tokens_b changes). `base` must be a global: thread:set() sets the thread's
-- global, which a `local base` would shadow (then every thread counted from 0
-- and about half the requests repeated another thread's body).
local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
local template = f:read("*a")
f:close()
local counter = 0
base = 0

function setup(thread)
  base = base + 1
  thread:set("base", base * 10000)
end

function request()
  counter = counter + 1
  -- thread k asks k*10000 + n/1000 billion tokens: distinct, and within the
  -- API's 1e6 limit for any run length wrk can reach
  local body = template:gsub('"tokens_b":%s*[%d%.]+', '"tokens_b":' .. string.format("%.3f", base + counter / 1000))
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
