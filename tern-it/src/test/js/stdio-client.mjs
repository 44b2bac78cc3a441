// Drives an MCP server over stdio with an official TypeScript SDK client and prints what it saw as JSON.
//
//   node stdio-client.mjs CONFIG
//
// CONFIG is a JSON object, inline or the path of a file holding it:
//   command, args   how to start the server (spawned by the SDK's StdioClientTransport)
//   cwd             the server's working directory (default: this process's)
//   npmDir          the directory whose node_modules holds the SDK packages (default: $TERN_NPM_DIR)
//   sdk             "v1" (@modelcontextprotocol/sdk, default) or "v2" (@modelcontextprotocol/client)
//   era             "legacy" (initialize handshake, default), "auto" (v2 only: probe with server/discover and use
//                   what the server offers) or a pinned modern version such as "2026-07-28" (v2 only)
//   checks          which checks to run, in this order (default: all of them):
//                   tools, get_user, resource, prompt, completion, progress, logging, elicitation, cancel
//   timeoutMs       bound on the whole run (default 90000)
//
// stdout gets one JSON summary; the exit status is 0 only if every check passed.

import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ALL_CHECKS = ['tools', 'get_user', 'resource', 'prompt', 'completion', 'progress', 'logging', 'elicitation', 'cancel'];
const CANCEL_REASON = 'interop test: cancelled by the client';
const ELICITED_NAME = 'Ada Lovelace';
const REQUEST_TIMEOUT_MS = 20_000;
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';

const summary = {
    ok: false,
    sdk: null,
    requestedEra: null,
    era: null,
    protocolVersion: null,
    server: null,
    checks: {},
    failures: [],
    clientErrors: [],
    wire: { sent: {}, received: {}, responses: 0, errorResponses: 0, inputRequired: 0, resultsWithoutResultType: 0,
        completeResultsWithoutServerInfo: 0, inputRequiredWithoutServerInfo: 0 },
    serverStderrTail: '',
    recentWire: []
};
const recentWire = summary.recentWire;

let transport;
let client;
let serverStderr = '';
let config;
try {
    config = loadConfig(process.argv[2]);
} catch (e) {
    summary.failures.push(`config: ${e.message}`);
    finish(2);
}

const sdkName = config?.sdk ?? 'v1';
const era = config?.era ?? 'legacy';
const checks = config?.checks ?? ALL_CHECKS;
const npmDir = config?.npmDir ?? process.env.TERN_NPM_DIR;

if (config) {
    summary.requestedEra = era;
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

    transport = new sdk.StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        cwd: config.cwd,
        stderr: 'pipe'
    });
    transport.stderr?.on('data', chunk => {
        serverStderr = (serverStderr + chunk.toString('utf8')).slice(-8_000);
    });
    recordWire(transport);

    const connectStarted = performance.now();
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    summary.connectMs = Math.round(performance.now() - connectStarted);
    summary.protocolVersion = sdk.negotiatedVersion(client);
    summary.era = sdk.era(client);
    summary.server = client.getServerVersion() ?? null;
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
                    return checkCancel(callTool);
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
    // The SDK clients dispatch notifications a microtask late but responses at once, so progress written just
    // before the response can reach a handler that is already gone (typescript-sdk issue 2580). The tool waits
    // for acknowledge_progress, which this client calls once the last step has been delivered.
    const progress = [];
    let acknowledged = null;
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
    return { notifications: progress };
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
    if (modern) {
        expect(viaRequest === 0 && viaInputRequired === 1, `2026-07-28 elicitation: ${viaRequest} requests, ${viaInputRequired} input_required results`);
    } else {
        expect(viaRequest === 1 && viaInputRequired === 0, `legacy elicitation: ${viaRequest} requests, ${viaInputRequired} input_required results`);
    }
    return {
        message: asked[0].message,
        requestedProperties: Object.keys(asked[0].requestedSchema?.properties ?? {}),
        result: result.structuredContent,
        via: viaInputRequired > 0 ? 'input_required' : 'elicitation/create'
    };
}

async function checkCancel(callTool) {
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
    const after = await callTool({ name: 'cancellations', arguments: {} });
    const seen = after.structuredContent;
    expect(seen?.count === 1, `the server saw ${seen?.count} cancellations, expected 1`);
    const sent = (summary.wire.sent['notifications/cancelled'] ?? 0) - cancelledBefore;
    expect(sent === 1, `the client sent ${sent} notifications/cancelled`);
    expect(summary.wire.lateResponses === undefined, `a response arrived for the cancelled request: ${JSON.stringify(summary.wire.lateResponses)}`);
    return { clientError: describe(error), serverSaw: seen, cancelledNotificationsSent: sent };
}

// ------------------------------------------------------------------------------------------------------------

function loadSdk(name, dir) {
    const require = createRequire(path.join(path.resolve(dir), 'package.json'));
    const versionOf = pkg => JSON.parse(readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    if (name === 'v1') {
        const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
        const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
        const types = require('@modelcontextprotocol/sdk/types.js');
        return {
            packageName: '@modelcontextprotocol/sdk',
            version: versionOf('@modelcontextprotocol/sdk'),
            Client,
            StdioClientTransport,
            onLogMessage: (client, handler) => client.setNotificationHandler(types.LoggingMessageNotificationSchema, handler),
            onElicit: (client, handler) => client.setRequestHandler(types.ElicitRequestSchema, handler),
            callTool: (client, params, options) => client.callTool(params, types.CallToolResultSchema, options),
            negotiatedVersion: () => summary.wire.initializeVersion ?? null,
            era: () => 'legacy'
        };
    }
    if (name === 'v2') {
        const { Client } = require('@modelcontextprotocol/client');
        const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
        return {
            packageName: '@modelcontextprotocol/client',
            version: versionOf('@modelcontextprotocol/client'),
            Client,
            StdioClientTransport,
            onLogMessage: (client, handler) => client.setNotificationHandler('notifications/message', handler),
            onElicit: (client, handler) => client.setRequestHandler('elicitation/create', handler),
            callTool: (client, params, options) => client.callTool(params, options),
            negotiatedVersion: client => client.getNegotiatedProtocolVersion() ?? null,
            era: client => client.getProtocolEra() ?? null
        };
    }
    throw new Error(`unknown sdk "${name}" (expected v1 or v2)`);
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
        get: () => inner && (message => {
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
            inner(message);
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
        throw new Error('usage: node stdio-client.mjs CONFIG (JSON, inline or a file)');
    }
    const text = arg.trimStart().startsWith('{') ? arg : readFileSync(arg, 'utf8');
    const parsed = JSON.parse(text);
    if (typeof parsed.command !== 'string' || parsed.command.length === 0) {
        throw new Error('config.command must be a non-empty string');
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
    summary.serverStderrTail = serverStderr.slice(-4_000);
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n', () => process.exit(code));
}
