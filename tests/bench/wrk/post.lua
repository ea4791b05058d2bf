-- post.lua: wrk script for POST benchmarks. The body comes from the file named
-- by BODY_FILE, its type from CONTENT_TYPE, and a bearer token from TOKEN (if set).
local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = os.getenv("CONTENT_TYPE") or "application/json"
local token = os.getenv("TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

-- Count answers by class so a benchmark full of errors cannot pass for a fast one.
local classes = {}
function response(status, headers, body)
  local c = math.floor(status / 100)
  classes[c] = (classes[c] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("status: non-2xx/3xx=%d (socket errors: connect %d, read %d, write %d, timeout %d)\n",
    summary.errors.status, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout))
end
