-- Each request: the next host (its own token) with its next seq; bodies are shared gzip reports, one per seq.
-- Args: data dir, first seq, seq count, thread count, and optionally the host to start from (a warm-up round goes on
-- where the previous one stopped).
local counter = 0
local threads = {}

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local tokens, bodies, per_thread, seq_offset, seq_count, thread_count = {}, {}, 0, 0, 0, 1
local c = 0

function init(args)
  local dir = args[1]
  seq_offset = tonumber(args[2])
  seq_count = tonumber(args[3])
  thread_count = tonumber(args[4])
  for line in io.lines(dir .. "/tokens.txt") do table.insert(tokens, line) end
  for s = seq_offset, seq_offset + seq_count - 1 do
    local f = io.open(dir .. "/body-" .. s .. ".gz", "rb")
    bodies[s] = f:read("*all")
    f:close()
  end
  per_thread = math.floor(#tokens / thread_count)
  c = math.floor(tonumber(args[5] or "0") / thread_count) % per_thread
end

function request()
  local host = (c % per_thread) * thread_count + tid
  local seq = seq_offset + (math.floor(c / per_thread) % seq_count)
  c = c + 1
  return wrk.format("POST", "/api/v1/ingest", {
    ["Authorization"] = "Bearer " .. tokens[host + 1],
    ["Content-Type"] = "application/json",
    ["Content-Encoding"] = "gzip",
  }, bodies[seq])
end
