-- wrk at a fixed rate, for comparing a client's CPU per request with wrk's at the same rate: each connection waits
-- WRK_DELAY_MS between a reply and its next request (32 connections and 8 ms: about 4,000 requests/s).
--
--   WRK_DELAY_MS=8 wrk -t1 -c32 -d30s -s bench/peers/wrk-rate.lua http://127.0.0.1:PORT/users/42
local delay_ms = tonumber(os.getenv("WRK_DELAY_MS") or "8")

function delay()
  return delay_ms
end
