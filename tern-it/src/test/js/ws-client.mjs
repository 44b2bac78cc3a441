// Drives an MCP server over WebSocket with an official TypeScript SDK client and prints what it saw as JSON.
//
//   node ws-client.mjs CONFIG
//
// CONFIG is a JSON object, inline or the path of a file holding it:
//   url             the WebSocket endpoint, e.g. ws://127.0.0.1:PORT/mcp/ws
//   npmDir          the directory whose node_modules holds the SDK packages (default: $TERN_NPM_DIR)
//   sdk             "v1" (@modelcontextprotocol/sdk, default) or "v2" (@modelcontextprotocol/client)
//   era             "legacy" (initialize handshake, default), "auto" (v2 only) or a pinned modern version such as
//                   "2026-07-28" (v2 only)
//   checks          which checks to run, in this order (default: all of them):
//                   tools, get_user, resource, prompt, completion, progress, logging, elicitation, cancel
//   timeoutMs       bound on the whole run (default 90000)
//
// The transport is the SDK's WebSocketClientTransport (subprotocol "mcp"), which only @modelcontextprotocol/sdk 1.x
// ships; with sdk "v2" the 2.x Client runs over that same transport class.
//
// stdout gets one JSON summary; the exit status is 0 only if every check passed.

import { COMMON_CHECKS, connect, loadSdk, main, newSummary, runChecks } from './interop-checks.mjs';

const summary = newSummary({ url: null, transport: 'websocket', closedByServer: null });
let session;

await main({ summary, usage: 'node ws-client.mjs', validate, run, client: () => session?.client,
    beforePrint: () => {} });

async function run(config) {
    const sdkName = config.sdk ?? 'v1';
    const era = config.era ?? 'legacy';
    const npmDir = config.npmDir ?? process.env.TERN_NPM_DIR;
    summary.url = config.url;
    if (!npmDir) {
        throw new Error('npmDir is not set (config npmDir or TERN_NPM_DIR)');
    }
    const websocket = { WebSocketClientTransport: '@modelcontextprotocol/sdk/client/websocket.js' };
    const sdk = loadSdk(sdkName, npmDir, summary, { v1: websocket, v2: websocket });
    session = await connect({
        sdk, sdkName, era, summary,
        makeTransport: () => new sdk.WebSocketClientTransport(new URL(config.url))
    });
    await runChecks(config.checks ?? COMMON_CHECKS, session);
}

function validate(config) {
    if (typeof config.url !== 'string' || !/^wss?:\/\//.test(config.url)) {
        throw new Error('config.url must be a ws:// or wss:// URL');
    }
}
