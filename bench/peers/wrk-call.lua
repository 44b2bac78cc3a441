-- wrk's request for the peer comparison: tools/call get_user {"id":"42"} over Streamable HTTP.
--
--   MCP_ERA=modern   a 2026-07-28 request: MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, the protocol
--                    version, client info and capabilities in params._meta
--   MCP_ERA=legacy   a request of the version MCP_PROTOCOL_VERSION names (default 2025-11-25, the one initialize
--                    agreed on) in the session MCP_SESSION_ID names (unset or empty: a stateless server)
--
-- Every request has an id of its own (in a session, an id may not be reused while its request is in flight).
-- WRK_DELAY_MS, when set, makes each connection wait that long between a reply and its next request (a fixed pace).
--
--   MCP_ERA=modern wrk -t1 -c32 -d30s -s bench/peers/wrk-call.lua http://127.0.0.1:PORT/mcp
local era = os.getenv("MCP_ERA") or "legacy"
local after_id

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
if era == "modern" then
  wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
  wrk.headers["Mcp-Method"] = "tools/call"
  wrk.headers["Mcp-Name"] = "get_user"
  after_id = ',"method":"tools/call","params":{"name":"get_user","arguments":{"id":"42"},'
    .. '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    .. '"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"}}}}'
elseif era == "legacy" then
  local version = os.getenv("MCP_PROTOCOL_VERSION")
  wrk.headers["MCP-Protocol-Version"] = (version ~= nil and version ~= "") and version or "2025-11-25"
  local session = os.getenv("MCP_SESSION_ID")
  if session ~= nil and session ~= "" then
    wrk.headers["Mcp-Session-Id"] = session
  end
  after_id = ',"method":"tools/call","params":{"name":"get_user","arguments":{"id":"42"}}}'
else
  error("MCP_ERA: " .. era .. " (expected modern or legacy)")
end

-- Each thread counts from a base of its own.
local threads = 0
function setup(thread)
  thread:set("next_id", threads * 1000000000)
  threads = threads + 1
end

function request()
  next_id = next_id + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. next_id .. after_id)
end

local delay_ms = tonumber(os.getenv("WRK_DELAY_MS") or "")
if delay_ms ~= nil then
  function delay()
    return delay_ms
  end
end
