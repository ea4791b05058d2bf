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
-- The body is the template's text before and after its tokens_b number with
-- a new number between them: the same bytes template:gsub(pattern, ...)
-- makes, without a pattern search of the whole body on every request (the
-- client shares the machine's cores with the server it measures).
local pattern = '"tokens_b":%s*[%d%.]+'
local from, to = template:find(pattern)
assert(from and not template:find(pattern, to + 1), "BODY_FILE needs exactly one tokens_b")
local head, tail = template:sub(1, from - 1), template:sub(to + 1)
local headers = {["Content-Type"] = "application/json"}

function setup(thread)
  base = base + 1
  thread:set("base", base * 10000)
end

function request()
  counter = counter + 1
  -- thread k asks k*10000 + n/1000 billion tokens: distinct, and within the
  -- API's 1e6 limit for any run length wrk can reach
  local body = head .. '"tokens_b":' .. string.format("%.3f", base + counter / 1000) .. tail
  return wrk.format("POST", nil, headers, body)
end
