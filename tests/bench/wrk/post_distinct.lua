-- post_distinct.lua: like post.lua, but every request carries a body never
-- sent before (tokens_b counts up per thread), so each one misses the
-- server's plan cache and runs the planner's whole search.
local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
local template = f:read("*a")
f:close()
local counter = 0
local base = 0

function setup(thread)
  base = base + 1
  thread:set("base", base * 1000000)
end

function request()
  counter = counter + 1
  local body = template:gsub('"tokens_b":%s*[%d%.]+', '"tokens_b":' .. tostring(base + counter))
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
