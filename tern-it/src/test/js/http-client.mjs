// Drives an MCP server over Streamable HTTP with an official TypeScript SDK client and prints what it saw as JSON.
//
//   node http-client.mjs CONFIG
//
// CONFIG is a JSON object, inline or the path of a file holding it:
//   url             the MCP endpoint, e.g. http://127.0.0.1:PORT/mcp
//   npmDir          the directory whose node_modules holds the SDK packages (default: $TERN_NPM_DIR)
//   sdk             "v1" (@modelcontextprotocol/sdk, default) or "v2" (@modelcontextprotocol/client)
//   era             "legacy" (initialize handshake and an Mcp-Session-Id session, default), "auto" (v2 only: probe
//                   with server/discover and use what the server offers) or a pinned modern version such as
//                   "2026-07-28" (v2 only; stateless requests)
//   transport       "streamable" (Streamable HTTP, default) or "sse" (v1 only: the deprecated 2024-11-05 HTTP+SSE
//                   transport; url is then the SSE endpoint, e.g. http://127.0.0.1:PORT/sse)
//   checks          which checks to run, in this order (default: all of them):
//                   tools, get_user, resource, prompt, completion, progress, logging, elicitation, cancel, session
//                   ("session" ends the session, so it belongs last)
//   timeoutMs       bound on the whole run (default 90000)
//
// Every HTTP exchange of the SDK's transport goes through a recording fetch, so the summary also tells what crossed
// HTTP: methods, statuses, content types, and the Mcp-Session-Id and MCP-Protocol-Version headers.
//
// stdout gets one JSON summary; the exit status is 0 only if every check passed.

import { COMMON_CHECKS, connect, describe, expect, loadSdk, main, newSummary, runChecks, safeJson }
    from './interop-checks.mjs';

const ALL_CHECKS = [...COMMON_CHECKS, 'session'];
const LEGACY_VERSION = '2025-11-25';

const summary = newSummary({
    url: null,
    transport: null,
    http: { exchanges: 0, byMethod: {}, statuses: {}, postContentTypes: {}, sessionIdsSent: [], sessionIdsReturned: [],
        protocolVersionHeaders: {}, failedFetches: 0 },
    recentHttp: []
});
/** Every HTTP exchange of the SDK's transport, in order; the summary gets its tail. */
const httpLog = [];
/**
 * The exchanges not answered yet. Closing the v1 SSE transport aborts every POST still in flight (they share its
 * AbortController), such as a notifications/cancelled sent without waiting: the client waits for them first.
 */
const inFlight = new Set();
let session;

await main({ summary, usage: 'node http-client.mjs', validate, run, client: () => session?.client,
    beforeClose: () => settled(inFlight, 2_000),
    beforePrint: () => {
        summary.recentHttp = httpLog.slice(-40);
    } });

async function run(config) {
    const sdkName = config.sdk ?? 'v1';
    const era = config.era ?? 'legacy';
    const transportKind = config.transport ?? 'streamable';
    const checks = config.checks ?? ALL_CHECKS;
    const npmDir = config.npmDir ?? process.env.TERN_NPM_DIR;
    summary.url = config.url;
    summary.transport = transportKind;
    if (!npmDir) {
        throw new Error('npmDir is not set (config npmDir or TERN_NPM_DIR)');
    }
    const sdk = loadSdk(sdkName, npmDir, summary, {
        v1: {
            StreamableHTTPClientTransport: '@modelcontextprotocol/sdk/client/streamableHttp.js',
            SSEClientTransport: '@modelcontextprotocol/sdk/client/sse.js'
        },
        v2: { StreamableHTTPClientTransport: '@modelcontextprotocol/client' }
    });
    session = await connect({
        sdk, sdkName, era, summary,
        makeTransport: () => {
            if (transportKind === 'sse') {
                if (!sdk.SSEClientTransport) {
                    throw new Error('transport "sse" needs sdk "v1"');
                }
                return new sdk.SSEClientTransport(new URL(config.url), { fetch: recordingFetch });
            }
            return new sdk.StreamableHTTPClientTransport(new URL(config.url), { fetch: recordingFetch });
        }
    });
    summary.sessionId = session.transport.sessionId ?? null;
    if (transportKind !== 'sse') {
        // Over the 2024-11-05 transport every message comes on the one SSE stream; POSTs are answered 202.
        session.sseResponses = () => summary.http.postContentTypes['text/event-stream'] ?? 0;
        session.cancelsByClosingStream = true;
    }
    await runChecks(checks, session, {
        session: () => session.modern ? checkNoSession(session, config) : checkSession(session, config)
    });
}

/** Legacy era: the session id the server gave, its standalone GET stream, DELETE, and 404 for the old id. */
async function checkSession(session, config) {
    const sessionId = session.transport.sessionId;
    expect(typeof sessionId === 'string' && /^[\x21-\x7e]+$/.test(sessionId), `session id: ${JSON.stringify(sessionId)}`);
    const log = httpLog;
    const initialize = log.find(e => e.rpc === 'initialize');
    expect(initialize?.sessionIdReturned === sessionId, 'the initialize response did not carry the session id');
    expect(initialize?.sessionIdSent === null, 'the initialize request carried a session id');
    const afterInit = log.filter(e => e !== initialize);
    const without = afterInit.filter(e => e.sessionIdSent !== sessionId);
    expect(without.length === 0, `requests without the session id: ${JSON.stringify(without)}`);
    const wrongVersion = afterInit.filter(e => e.protocolVersion !== LEGACY_VERSION);
    expect(wrongVersion.length === 0, `requests without MCP-Protocol-Version ${LEGACY_VERSION}: ${JSON.stringify(wrongVersion)}`);
    const getStream = log.find(e => e.method === 'GET');
    expect(getStream?.status === 200 && getStream.contentType?.startsWith('text/event-stream'),
        `the standalone GET stream: ${JSON.stringify(getStream)}`);

    await session.transport.terminateSession();
    const deleted = httpLog.filter(e => e.method === 'DELETE');
    expect(deleted.length === 1 && deleted[0].status === 200, `DELETE: ${JSON.stringify(deleted)}`);
    expect(session.transport.sessionId === undefined, 'the transport still holds the session id after DELETE');

    const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': LEGACY_VERSION
    };
    const post = await fetch(config.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 'after-delete', method: 'tools/list', params: {} })
    });
    const postBody = await post.text();
    const get = await fetch(config.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } });
    await get.body?.cancel();
    const again = await fetch(config.url, { method: 'DELETE', headers });
    await again.body?.cancel();
    expect(post.status === 404, `POST with the deleted session id: ${post.status} ${postBody}`);
    expect(get.status === 404, `GET with the deleted session id: ${get.status}`);
    expect(again.status === 404, `DELETE of the deleted session: ${again.status}`);
    return {
        sessionIdLength: sessionId.length,
        getStream: { status: getStream.status, contentType: getStream.contentType },
        deleteStatus: deleted[0].status,
        afterDelete: { post: post.status, get: get.status, delete: again.status, postError: safeJson(postBody)?.error ?? null }
    };
}

/** 2026-07-28: no session at all, every POST names its version, and GET on the endpoint is not allowed. */
async function checkNoSession(session, config) {
    const log = httpLog;
    expect(session.transport.sessionId === undefined, `the transport holds a session id: ${session.transport.sessionId}`);
    expect(summary.http.sessionIdsReturned.length === 0, `the server returned session ids: ${summary.http.sessionIdsReturned}`);
    expect(summary.http.sessionIdsSent.length === 0, `the client sent session ids: ${summary.http.sessionIdsSent}`);
    const methods = new Set(log.map(e => e.method));
    expect(methods.size === 1 && methods.has('POST'), `HTTP methods used: ${[...methods]}`);
    const unversioned = log.filter(e => e.protocolVersion !== summary.protocolVersion);
    expect(unversioned.length === 0, `POSTs without MCP-Protocol-Version ${summary.protocolVersion}: ${JSON.stringify(unversioned.slice(0, 3))}`);
    await session.transport.terminateSession();
    const get = await fetch(config.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': summary.protocolVersion }
    });
    await get.body?.cancel();
    expect(get.status === 405, `GET on the endpoint in ${summary.protocolVersion}: ${get.status}`);
    return { posts: log.length, getStatus: get.status, allow: get.headers.get('allow') };
}

// ------------------------------------------------------------------------------------------------------------

/** The fetch the SDK transport uses: notes each HTTP exchange, then hands it on unchanged. */
async function recordingFetch(url, init) {
    const headers = new Headers(init?.headers);
    const method = (init?.method ?? 'GET').toUpperCase();
    const entry = {
        method,
        rpc: rpcMethodOf(init?.body),
        sessionIdSent: headers.get('mcp-session-id'),
        protocolVersion: headers.get('mcp-protocol-version'),
        status: null,
        contentType: null,
        sessionIdReturned: null
    };
    const http = summary.http;
    http.exchanges++;
    http.byMethod[method] = (http.byMethod[method] ?? 0) + 1;
    if (entry.sessionIdSent && !http.sessionIdsSent.includes(entry.sessionIdSent)) {
        http.sessionIdsSent.push(entry.sessionIdSent);
    }
    const version = entry.protocolVersion ?? 'none';
    http.protocolVersionHeaders[version] = (http.protocolVersionHeaders[version] ?? 0) + 1;
    httpLog.push(entry);
    let response;
    const pending = fetch(url, init);
    inFlight.add(pending);
    try {
        response = await pending;
    } catch (e) {
        http.failedFetches++;
        entry.error = describe(e);
        throw e;
    } finally {
        inFlight.delete(pending);
    }
    entry.status = response.status;
    entry.contentType = response.headers.get('content-type');
    entry.sessionIdReturned = response.headers.get('mcp-session-id');
    http.statuses[response.status] = (http.statuses[response.status] ?? 0) + 1;
    if (method === 'POST' && entry.contentType) {
        const type = entry.contentType.split(';')[0].trim();
        http.postContentTypes[type] = (http.postContentTypes[type] ?? 0) + 1;
    }
    if (entry.sessionIdReturned && !http.sessionIdsReturned.includes(entry.sessionIdReturned)) {
        http.sessionIdsReturned.push(entry.sessionIdReturned);
    }
    return response;
}

function rpcMethodOf(body) {
    if (typeof body !== 'string') {
        return null;
    }
    const message = safeJson(body);
    if (Array.isArray(message)) {
        return 'batch';
    }
    return message?.method ?? (message && 'id' in message ? 'response' : null);
}

function validate(config) {
    if (typeof config.url !== 'string' || !/^https?:\/\//.test(config.url)) {
        throw new Error('config.url must be an http(s) URL');
    }
}

/** Waits until every promise in {@code promises} has settled, or {@code ms} have passed. */
async function settled(promises, ms) {
    let timer;
    await Promise.race([Promise.allSettled([...promises]),
        new Promise(resolve => { timer = setTimeout(resolve, ms); })]);
    clearTimeout(timer);
}
