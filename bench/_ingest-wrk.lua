-- Each request: the next host (its own token) with its next seq; bodies are shared gzip reports, one per seq.
-- Args: data dir, first seq, seq count, thread count, and optionally the host to start from (a warm-up round goes on
-- where the previous one stopped) and a rate in requests/s for all threads (0: as fast as the server answers).
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } inferwatch_timespec;
int clock_gettime(int clock_id, inferwatch_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local clock = ffi.new("inferwatch_timespec")
local function now_ms()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, clock)
  return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
end
local counter = 0
local threads = {}

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local tokens, bodies, per_thread, seq_offset, seq_count, thread_count = {}, {}, 0, 0, 0, 1
local c = 0
local interval_ms, next_ms = 0, nil
-- A thread that fell behind its schedule catches up by at most this much at once.
local MAX_LAG_MS = 1000

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
  local rate = tonumber(args[6] or "0")
  if rate > 0 then interval_ms = 1000 * thread_count / rate end
end

-- Paced: each thread sends on its own fixed schedule, whichever of its connections is free, so a slow answer does
-- not slow the arrivals (an open load, as a fleet of agents is) while connections remain.
function delay()
  if interval_ms == 0 then return 0 end
  local now = now_ms()
  if next_ms == nil or next_ms < now - MAX_LAG_MS then next_ms = now end
  local wait = next_ms - now
  next_ms = next_ms + interval_ms
  return wait > 0 and wait or 0
end

function request()
  local host = (c % per_thread) * thread_count + tid
  -- Past the last seq the range begins again: replays, which store nothing and fail the window (bench/ingest.ts
  -- sizes each window's seqs to hold what it sends).
  local seq = seq_offset + (math.floor(c / per_thread) % seq_count)
  c = c + 1
  return wrk.format("POST", "/api/v1/ingest", {
    ["Authorization"] = "Bearer " .. tokens[host + 1],
    ["Content-Type"] = "application/json",
    ["Content-Encoding"] = "gzip",
  }, bodies[seq])
end
