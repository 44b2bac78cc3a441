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

import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ALL_CHECKS = ['tools', 'get_user', 'resource', 'prompt', 'completion', 'progress', 'logging', 'elicitation',
    'cancel', 'session'];
const CANCEL_REASON = 'interop test: cancelled by the client';
const ELICITED_NAME = 'Ada Lovelace';
const REQUEST_TIMEOUT_MS = 20_000;
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';
const LEGACY_VERSION = '2025-11-25';

const summary = {
    ok: false,
    sdk: null,
    url: null,
    requestedEra: null,
    era: null,
    protocolVersion: null,
    server: null,
    checks: {},
    failures: [],
    clientErrors: [],
    wire: { sent: {}, received: {}, responses: 0, errorResponses: 0, inputRequired: 0, resultsWithoutResultType: 0,
        completeResultsWithoutServerInfo: 0, inputRequiredWithoutServerInfo: 0 },
    http: { exchanges: 0, byMethod: {}, statuses: {}, postContentTypes: {}, sessionIdsSent: [], sessionIdsReturned: [],
        protocolVersionHeaders: {}, failedFetches: 0 },
    recentHttp: [],
    recentWire: []
};
const recentWire = summary.recentWire;
/** Every HTTP exchange of the SDK's transport, in order; the summary gets its tail. */
const httpLog = [];

let transport;
let client;
let config;
try {
    config = loadConfig(process.argv[2]);
} catch (e) {
    summary.failures.push(`config: ${e.message}`);
    finish(2);
}

const sdkName = config?.sdk ?? 'v1';
const era = config?.era ?? 'legacy';
const transportKind = config?.transport ?? 'streamable';
const checks = config?.checks ?? ALL_CHECKS;
const npmDir = config?.npmDir ?? process.env.TERN_NPM_DIR;

if (config) {
    summary.requestedEra = era;
    summary.transport = transportKind;
    summary.url = config.url;
    const timeoutMs = config.timeoutMs ?? 90_000;
    const watchdog = setTimeout(() => {
        summary.failures.push(`timed out after ${timeoutMs} ms`);
        void closeQuietly().finally(() => finish(3));
    }, timeoutMs);
    try {
        await run();
    } catch (e) {
        summary.failures.push(`run: ${describe(e)}`);
    }
    const closeStarted = performance.now();
    await closeQuietly();
    summary.closeMs = Math.round(performance.now() - closeStarted);
    clearTimeout(watchdog);
    summary.ok = summary.failures.length === 0 && Object.values(summary.checks).every(c => c.ok);
    finish(summary.ok ? 0 : 1);
}

// ------------------------------------------------------------------------------------------------------------

async function run() {
    if (!npmDir) {
        throw new Error('npmDir is not set (config npmDir or TERN_NPM_DIR)');
    }
    for (const name of checks) {
        if (!ALL_CHECKS.includes(name)) {
            throw new Error(`unknown check "${name}" (expected some of ${ALL_CHECKS.join(', ')})`);
        }
    }
    const sdk = loadSdk(sdkName, npmDir);
    summary.sdk = { package: sdk.packageName, version: sdk.version };
    if (sdkName === 'v1' && era !== 'legacy') {
        throw new Error(`@modelcontextprotocol/sdk ${sdk.version} speaks only the legacy era; use sdk "v2" for era "${era}"`);
    }

    let elicitations = [];
    const clientOptions = { capabilities: { elicitation: {} } };
    if (sdkName === 'v2' && era !== 'legacy') {
        clientOptions.versionNegotiation = { mode: era === 'auto' ? 'auto' : { pin: era } };
    }
    client = new sdk.Client({ name: 'tern-interop-test', version: '1.0.0' }, clientOptions);
    client.onerror = e => summary.clientErrors.push(describe(e));
    const logMessages = [];
    sdk.onLogMessage(client, n => logMessages.push(n.params));
    sdk.onElicit(client, request => {
        elicitations.push(request.params);
        return { action: 'accept', content: { name: ELICITED_NAME } };
    });

    if (transportKind === 'sse') {
        if (!sdk.SSEClientTransport) {
            throw new Error(`transport "sse" needs sdk "v1"`);
        }
        transport = new sdk.SSEClientTransport(new URL(config.url), { fetch: recordingFetch });
    } else {
        transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), { fetch: recordingFetch });
    }
    recordWire(transport);

    const connectStarted = performance.now();
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    summary.connectMs = Math.round(performance.now() - connectStarted);
    summary.protocolVersion = sdk.negotiatedVersion(client);
    summary.era = sdk.era(client);
    summary.server = client.getServerVersion() ?? null;
    summary.sessionId = transport.sessionId ?? null;
    const modern = summary.era === 'modern';
    if (era === 'legacy' && modern) {
        summary.failures.push('connect: asked for the legacy era but the connection is modern');
    }
    if (era !== 'legacy' && era !== 'auto' && summary.protocolVersion !== era) {
        summary.failures.push(`connect: pinned ${era} but negotiated ${summary.protocolVersion}`);
    }

    const callTool = (params, options = {}) => sdk.callTool(client, params, { timeout: REQUEST_TIMEOUT_MS, ...options });

    for (const name of checks) {
        await check(name, async () => {
            switch (name) {
                case 'tools':
                    return checkTools(client);
                case 'get_user':
                    return checkGetUser(callTool);
                case 'resource':
                    return checkResource(client);
                case 'prompt':
                    return checkPrompt(client);
                case 'completion':
                    return checkCompletion(client);
                case 'progress':
                    return checkProgress(callTool);
                case 'logging':
                    return checkLogging(client, callTool, logMessages, modern);
                case 'elicitation':
                    elicitations = [];
                    return checkElicitation(callTool, () => elicitations, modern);
                case 'cancel':
                    return checkCancel(callTool, modern);
                case 'session':
                    return modern ? checkNoSession() : checkSession();
            }
        });
    }
}

async function checkTools(client) {
    const { tools } = await client.listTools({}, { timeout: REQUEST_TIMEOUT_MS });
    const names = tools.map(t => t.name);
    const getUser = tools.find(t => t.name === 'get_user');
    expect(getUser, `get_user is not listed (tools: ${names.join(', ')})`);
    expect(getUser.inputSchema?.type === 'object', 'get_user inputSchema.type is not "object"');
    expect(getUser.inputSchema?.properties?.id, 'get_user inputSchema has no "id" property');
    expect(getUser.outputSchema?.type === 'object', 'get_user has no object outputSchema');
    return { names, getUserRequired: getUser.inputSchema.required ?? [], getUserReadOnly: getUser.annotations?.readOnlyHint ?? null };
}

async function checkGetUser(callTool) {
    const result = await callTool({ name: 'get_user', arguments: { id: '7' } });
    expect(!result.isError, `get_user failed: ${JSON.stringify(result.content)}`);
    const user = result.structuredContent;
    expect(user && typeof user === 'object', 'get_user has no structuredContent');
    expect(user.id === '7', `structuredContent.id is ${JSON.stringify(user.id)}, expected "7"`);
    expect(typeof user.email === 'string' && user.email.includes('@'), 'structuredContent.email is not an address');
    const text = result.content?.find(c => c.type === 'text');
    expect(text, 'get_user has no text content');
    expect(JSON.stringify(JSON.parse(text.text)) === JSON.stringify(user), 'the text content is not the structuredContent as JSON');

    const missing = await callTool({ name: 'get_user', arguments: { id: 'no-such-user' } });
    expect(missing.isError === true, 'get_user for an unknown id is not a tool error (isError)');
    return {
        structuredContent: { id: user.id, username: user.username, email: user.email, city: user.address?.city },
        contentTypes: result.content.map(c => c.type),
        unknownIdError: missing.content?.find(c => c.type === 'text')?.text ?? null
    };
}

async function checkResource(client) {
    const result = await client.readResource({ uri: 'user://7' }, { timeout: REQUEST_TIMEOUT_MS });
    expect(result.contents?.length === 1, `expected 1 content, got ${result.contents?.length}`);
    const content = result.contents[0];
    expect(content.uri === 'user://7', `content uri is ${content.uri}`);
    expect(content.mimeType === 'application/json', `content mimeType is ${content.mimeType}`);
    const user = JSON.parse(content.text);
    expect(user.id === '7', `resource user id is ${user.id}`);
    const { resourceTemplates } = await client.listResourceTemplates({}, { timeout: REQUEST_TIMEOUT_MS });
    const templates = resourceTemplates.map(t => t.uriTemplate);
    expect(templates.includes('user://{id}'), `user://{id} is not a listed template (${templates.join(', ')})`);
    return { uri: content.uri, mimeType: content.mimeType, userId: user.id, templates };
}

async function checkPrompt(client) {
    const { prompts } = await client.listPrompts({}, { timeout: REQUEST_TIMEOUT_MS });
    const listed = prompts.find(p => p.name === 'summarize_user');
    expect(listed, 'summarize_user is not listed');
    const result = await client.getPrompt({ name: 'summarize_user', arguments: { id: '7' } }, { timeout: REQUEST_TIMEOUT_MS });
    expect(result.messages?.length === 2, `expected 2 messages, got ${result.messages?.length}`);
    expect(result.messages[0].content.type === 'text', 'the first message is not text');
    const embedded = result.messages[1].content;
    expect(embedded.type === 'resource', `the second message is ${embedded.type}, expected an embedded resource`);
    expect(embedded.resource.uri === 'user://7', `the embedded resource is ${embedded.resource.uri}`);
    return {
        arguments: (listed.arguments ?? []).map(a => a.name),
        description: result.description ?? null,
        roles: result.messages.map(m => m.role),
        contentTypes: result.messages.map(m => m.content.type),
        embeddedUri: embedded.resource.uri
    };
}

async function checkCompletion(client) {
    const result = await client.complete({
        ref: { type: 'ref/resource', uri: 'user://{id}' },
        argument: { name: 'id', value: '99' }
    }, { timeout: REQUEST_TIMEOUT_MS });
    const values = result.completion.values;
    expect(values.length > 0 && values.every(v => v.startsWith('99')), `completions of "99": ${JSON.stringify(values)}`);
    return { values, total: result.completion.total ?? null, hasMore: result.completion.hasMore ?? null };
}

async function checkProgress(callTool) {
    // The tool answers only once acknowledge_progress has been called, which this client does when the last step
    // has been delivered: progress events and the response share one SSE stream, and the SDKs dispatch
    // notifications a microtask later than responses.
    const progress = [];
    let acknowledged = null;
    const postsBefore = summary.http.postContentTypes['text/event-stream'] ?? 0;
    const result = await callTool({ name: 'count_with_progress', arguments: { steps: 3 } }, {
        onprogress: p => {
            progress.push({ progress: p.progress, total: p.total ?? null, message: p.message ?? null });
            if (p.progress === p.total) {
                acknowledged = callTool({ name: 'acknowledge_progress', arguments: {} });
            }
        }
    });
    expect(acknowledged !== null, 'the last progress step never arrived');
    await acknowledged;
    expect(!result.isError, `count_with_progress failed: ${JSON.stringify(result.content)}`);
    expect(result.structuredContent?.steps === 3, 'count_with_progress did not count to 3');
    expect(result.structuredContent?.acknowledged === true, 'count_with_progress did not see the acknowledgement');
    expect(progress.length === 3, `expected 3 progress notifications, got ${progress.length}`);
    expect(progress.every((p, i) => p.progress === i + 1 && p.total === 3), `progress: ${JSON.stringify(progress)}`);
    const sseResponses = (summary.http.postContentTypes['text/event-stream'] ?? 0) - postsBefore;
    // Over the 2024-11-05 transport every message, progress included, comes on the one SSE stream.
    expect(transportKind === 'sse' || sseResponses >= 1, 'the progress did not come on an SSE response to the POST');
    return { notifications: progress, sseResponses };
}

async function checkLogging(client, callTool, logMessages, modern) {
    const at = async level => {
        logMessages.length = 0;
        let result;
        if (modern) {
            // 2026-07-28: the level travels with each request.
            result = await callTool({ name: 'log_steps', arguments: { steps: 3 }, _meta: { [LOG_LEVEL_META]: level } });
        } else {
            await client.setLoggingLevel(level, { timeout: REQUEST_TIMEOUT_MS });
            result = await callTool({ name: 'log_steps', arguments: { steps: 3 } });
        }
        expect(!result.isError, `log_steps failed: ${JSON.stringify(result.content)}`);
        // log messages precede the response on its stream; give the notification dispatch a turn
        await new Promise(resolve => setImmediate(resolve));
        return logMessages.map(m => ({ level: m.level, logger: m.logger ?? null, data: m.data }));
    };
    const debug = await at('debug');
    expect(debug.length === 3, `at level debug: expected 3 log messages, got ${debug.length}`);
    expect(debug.map(m => m.level).join() === 'debug,info,warning', `at level debug: levels ${debug.map(m => m.level)}`);
    expect(debug.every((m, i) => m.logger === 'interop' && m.data?.step === i + 1), `log messages: ${JSON.stringify(debug)}`);
    const warning = await at('warning');
    expect(warning.length === 1 && warning[0].level === 'warning', `at level warning: ${JSON.stringify(warning)}`);
    return { atDebug: debug, atWarning: warning, levelVia: modern ? '_meta' : 'logging/setLevel' };
}

async function checkElicitation(callTool, elicitations, modern) {
    const inputRequiredBefore = summary.wire.inputRequired;
    const requestsBefore = summary.wire.received['elicitation/create'] ?? 0;
    const answersBefore = summary.wire.sent.response ?? 0;
    const result = await callTool({ name: 'ask_name', arguments: {} });
    expect(!result.isError, `ask_name failed: ${JSON.stringify(result.content)}`);
    const asked = elicitations();
    expect(asked.length === 1, `expected 1 elicitation, got ${asked.length}`);
    expect(asked[0].message === 'What is your name?', `elicitation message: ${asked[0].message}`);
    expect(asked[0].requestedSchema?.properties?.name?.type === 'string', 'the requested schema has no string "name"');
    expect(result.structuredContent?.action === 'accept', `ask_name action: ${result.structuredContent?.action}`);
    expect(result.structuredContent?.name === ELICITED_NAME, `ask_name name: ${result.structuredContent?.name}`);
    const viaRequest = (summary.wire.received['elicitation/create'] ?? 0) - requestsBefore;
    const viaInputRequired = summary.wire.inputRequired - inputRequiredBefore;
    const answersPosted = (summary.wire.sent.response ?? 0) - answersBefore;
    if (modern) {
        expect(viaRequest === 0 && viaInputRequired === 1, `2026-07-28 elicitation: ${viaRequest} requests, ${viaInputRequired} input_required results`);
        expect(answersPosted === 0, `2026-07-28 elicitation: the client POSTed ${answersPosted} JSON-RPC responses`);
    } else {
        expect(viaRequest === 1 && viaInputRequired === 0, `legacy elicitation: ${viaRequest} requests, ${viaInputRequired} input_required results`);
        expect(answersPosted === 1, `legacy elicitation: the client POSTed ${answersPosted} JSON-RPC responses`);
    }
    return {
        message: asked[0].message,
        requestedProperties: Object.keys(asked[0].requestedSchema?.properties ?? {}),
        result: result.structuredContent,
        via: viaInputRequired > 0 ? 'input_required' : 'elicitation/create',
        answersPosted
    };
}

async function checkCancel(callTool, modern) {
    const before = (await callTool({ name: 'cancellations', arguments: {} })).structuredContent;
    const controller = new AbortController();
    const cancelledBefore = summary.wire.sent['notifications/cancelled'] ?? 0;
    let progressSeen = 0;
    let error = null;
    let result = null;
    try {
        result = await callTool({ name: 'wait_for_cancel', arguments: {} }, {
            signal: controller.signal,
            onprogress: () => {
                progressSeen++;
                controller.abort(CANCEL_REASON);
            }
        });
    } catch (e) {
        error = e;
    }
    expect(result === null, `wait_for_cancel was not cancelled: ${JSON.stringify(result)}`);
    expect(progressSeen === 1, `expected 1 progress notification before cancelling, got ${progressSeen}`);
    // The server notes the cancellation on its own time: ask until it has (bounded by the run's timeout).
    let seen;
    for (let attempt = 0; attempt < 200; attempt++) {
        seen = (await callTool({ name: 'cancellations', arguments: {} })).structuredContent;
        if (seen?.count > before.count) {
            break;
        }
        await new Promise(resolve => setTimeout(resolve, 50));
    }
    expect(seen?.count === before.count + 1, `the server saw ${seen?.count - before.count} new cancellations, expected 1`);
    const sent = (summary.wire.sent['notifications/cancelled'] ?? 0) - cancelledBefore;
    if (modern) {
        // 2026-07-28 over HTTP: a client cancels by closing the request's response stream.
        expect(sent === 0, `the client sent ${sent} notifications/cancelled in the 2026-07-28 era`);
    } else {
        expect(sent === 1, `the client sent ${sent} notifications/cancelled`);
    }
    expect(summary.wire.lateResponses === undefined, `a response arrived for the cancelled request: ${JSON.stringify(summary.wire.lateResponses)}`);
    return { clientError: describe(error), serverSaw: { count: seen.count - before.count, lastReason: seen.lastReason },
        cancelledNotificationsSent: sent, via: modern ? 'stream closed' : 'notifications/cancelled' };
}

/** Legacy era: the session id the server gave, its standalone GET stream, DELETE, and 404 for the old id. */
async function checkSession() {
    const sessionId = transport.sessionId;
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

    await transport.terminateSession();
    const deleted = httpLog.filter(e => e.method === 'DELETE');
    expect(deleted.length === 1 && deleted[0].status === 200, `DELETE: ${JSON.stringify(deleted)}`);
    expect(transport.sessionId === undefined, 'the transport still holds the session id after DELETE');

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
async function checkNoSession() {
    const log = httpLog;
    expect(transport.sessionId === undefined, `the transport holds a session id: ${transport.sessionId}`);
    expect(summary.http.sessionIdsReturned.length === 0, `the server returned session ids: ${summary.http.sessionIdsReturned}`);
    expect(summary.http.sessionIdsSent.length === 0, `the client sent session ids: ${summary.http.sessionIdsSent}`);
    const methods = new Set(log.map(e => e.method));
    expect(methods.size === 1 && methods.has('POST'), `HTTP methods used: ${[...methods]}`);
    const unversioned = log.filter(e => e.protocolVersion !== summary.protocolVersion);
    expect(unversioned.length === 0, `POSTs without MCP-Protocol-Version ${summary.protocolVersion}: ${JSON.stringify(unversioned.slice(0, 3))}`);
    await transport.terminateSession();
    const get = await fetch(config.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': summary.protocolVersion }
    });
    await get.body?.cancel();
    expect(get.status === 405, `GET on the endpoint in ${summary.protocolVersion}: ${get.status}`);
    return { posts: log.length, getStatus: get.status, allow: get.headers.get('allow') };
}

// ------------------------------------------------------------------------------------------------------------

function loadSdk(name, dir) {
    const require = createRequire(path.join(path.resolve(dir), 'package.json'));
    const versionOf = pkg => JSON.parse(readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    if (name === 'v1') {
        const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
        const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
        const { SSEClientTransport } = require('@modelcontextprotocol/sdk/client/sse.js');
        const types = require('@modelcontextprotocol/sdk/types.js');
        return {
            packageName: '@modelcontextprotocol/sdk',
            version: versionOf('@modelcontextprotocol/sdk'),
            Client,
            StreamableHTTPClientTransport,
            SSEClientTransport,
            onLogMessage: (client, handler) => client.setNotificationHandler(types.LoggingMessageNotificationSchema, handler),
            onElicit: (client, handler) => client.setRequestHandler(types.ElicitRequestSchema, handler),
            callTool: (client, params, options) => client.callTool(params, types.CallToolResultSchema, options),
            negotiatedVersion: () => summary.wire.initializeVersion ?? null,
            era: () => 'legacy'
        };
    }
    if (name === 'v2') {
        const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
        return {
            packageName: '@modelcontextprotocol/client',
            version: versionOf('@modelcontextprotocol/client'),
            Client,
            StreamableHTTPClientTransport,
            onLogMessage: (client, handler) => client.setNotificationHandler('notifications/message', handler),
            onElicit: (client, handler) => client.setRequestHandler('elicitation/create', handler),
            callTool: (client, params, options) => client.callTool(params, options),
            negotiatedVersion: client => client.getNegotiatedProtocolVersion() ?? null,
            era: client => client.getProtocolEra() ?? null
        };
    }
    throw new Error(`unknown sdk "${name}" (expected v1 or v2)`);
}

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
    try {
        response = await fetch(url, init);
    } catch (e) {
        http.failedFetches++;
        entry.error = describe(e);
        throw e;
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

/** Counts the JSON-RPC messages crossing the transport, by method, and notes what the checks look at. */
function recordWire(t) {
    const wire = summary.wire;
    const pending = new Map();
    const cancelledIds = new Set();
    const count = (table, key) => {
        table[key] = (table[key] ?? 0) + 1;
    };
    const trace = (direction, message) => {
        recentWire.push(`${direction} ${JSON.stringify(message).slice(0, 300)}`);
        if (recentWire.length > 40) {
            recentWire.shift();
        }
    };
    const send = t.send.bind(t);
    t.send = async (message, options) => {
        trace('>>', message);
        if (message.method) {
            count(wire.sent, message.method);
            if (message.id !== undefined) {
                pending.set(message.id, message.method);
            }
            if (message.method === 'notifications/cancelled') {
                cancelledIds.add(message.params?.requestId);
            }
        } else {
            count(wire.sent, 'response');
        }
        return send(message, options);
    };
    let inner;
    Object.defineProperty(t, 'onmessage', {
        configurable: true,
        get: () => inner && ((message, extra) => {
            trace('<<', message);
            if (message.method) {
                count(wire.received, message.method);
            } else {
                wire.responses++;
                if (cancelledIds.has(message.id)) {
                    (wire.lateResponses ??= []).push(message.id);
                }
                if (message.error) {
                    wire.errorResponses++;
                } else if (message.result) {
                    const method = pending.get(message.id);
                    if (method === 'initialize') {
                        wire.initializeVersion = message.result.protocolVersion;
                    }
                    if (message.result.resultType === 'input_required') {
                        wire.inputRequired++;
                    }
                    if (summary.era === 'modern' || (summary.era === null && method === 'server/discover')) {
                        if (message.result.resultType === undefined) {
                            wire.resultsWithoutResultType++;
                        }
                        if (!message.result._meta?.['io.modelcontextprotocol/serverInfo']) {
                            if (message.result.resultType === 'input_required') {
                                wire.inputRequiredWithoutServerInfo++;
                            } else {
                                wire.completeResultsWithoutServerInfo++;
                            }
                        }
                    }
                }
                pending.delete(message.id);
            }
            inner(message, extra);
        }),
        set: fn => {
            inner = fn;
        }
    });
}

async function check(name, body) {
    const started = performance.now();
    try {
        const observed = await body();
        summary.checks[name] = { ok: true, ...observed };
    } catch (e) {
        summary.checks[name] = { ok: false, error: describe(e) };
    }
    summary.checks[name].ms = Math.round(performance.now() - started);
}

function expect(condition, message) {
    if (!condition) {
        throw new Error(message);
    }
}

function safeJson(text) {
    try {
        return JSON.parse(text);
    } catch {
        return null;
    }
}

function describe(e) {
    if (e === null || e === undefined) {
        return null;
    }
    if (e instanceof Error) {
        return `${e.name}: ${e.message}${e.code !== undefined ? ` (code ${e.code})` : ''}`;
    }
    return String(e);
}

function loadConfig(arg) {
    if (!arg) {
        throw new Error('usage: node http-client.mjs CONFIG (JSON, inline or a file)');
    }
    const text = arg.trimStart().startsWith('{') ? arg : readFileSync(arg, 'utf8');
    const parsed = JSON.parse(text);
    if (typeof parsed.url !== 'string' || !/^https?:\/\//.test(parsed.url)) {
        throw new Error('config.url must be an http(s) URL');
    }
    if (parsed.npmDir && !existsSync(path.join(parsed.npmDir, 'node_modules'))) {
        throw new Error(`config.npmDir ${parsed.npmDir} has no node_modules`);
    }
    return parsed;
}

async function closeQuietly() {
    try {
        if (client) {
            await client.close();
        } else {
            await transport?.close();
        }
    } catch (e) {
        summary.clientErrors.push(`close: ${describe(e)}`);
    }
}

function finish(code) {
    summary.recentHttp = httpLog.slice(-40);
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n', () => process.exit(code));
}
