-- One wrk script for every scenario, configured by environment variables
-- (set by bench/loadgen.py):
--   BENCH_METHOD        GET or POST
--   BENCH_PATHS_FILE    file with one request path per line, used round-robin
--   BENCH_AUTH          Authorization header value (optional)
--   BENCH_BODY          JSON body template; "{n}" becomes a value unique to
--                       this run, thread and request (unique identities)
--   BENCH_IDEMPOTENCY   Idempotency-Key header value (optional)
--   BENCH_NONCE         run-unique prefix for "{n}"
-- done() prints one line: BENCH_RESULT {json}.

local method, paths, auth, body, idem, nonce
local counter = 0
local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("tid", thread_count)
end

function init(args)
  method = os.getenv("BENCH_METHOD") or "GET"
  auth = os.getenv("BENCH_AUTH")
  body = os.getenv("BENCH_BODY")
  idem = os.getenv("BENCH_IDEMPOTENCY")
  nonce = os.getenv("BENCH_NONCE") or "0"
  paths = {}
  for line in io.lines(os.getenv("BENCH_PATHS_FILE")) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  if body and #body == 0 then body = nil end
end

function request()
  counter = counter + 1
  local headers = {}
  if auth then headers["Authorization"] = auth end
  if idem then headers["Idempotency-Key"] = idem end
  local payload = nil
  if body then
    headers["Content-Type"] = "application/json"
    local unique = nonce .. "t" .. tostring(tid) .. "n" .. tostring(counter)
    payload = body:gsub("{n}", unique)
  end
  local path = paths[(counter % #paths) + 1]
  return wrk.format(method, path, headers, payload)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests": %d, "duration_us": %d, "connect_errors": %d, ' ..
    '"read_errors": %d, "write_errors": %d, "status_errors": %d, "timeouts": %d, ' ..
    '"p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
