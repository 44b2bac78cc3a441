// What the interop clients (http-client.mjs and stdio-client.mjs) share: loading an official TypeScript SDK client,
// connecting it in the era asked for, recording the JSON-RPC messages that cross its transport, and the checks they
// run against an MCP server (the user directory of `tern serve`, or the interop fixture server).

import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const CANCEL_REASON = 'interop test: cancelled by the client';
export const ELICITED_NAME = 'Ada Lovelace';
export const REQUEST_TIMEOUT_MS = 20_000;
export const COMMON_CHECKS = ['tools', 'get_user', 'resource', 'prompt', 'completion', 'progress', 'logging',
    'elicitation', 'cancel'];
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';

/** The summary both clients print: what was asked, what was negotiated, each check, and what crossed the wire. */
export function newSummary(extra = {}) {
    return {
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
        recentWire: [],
        ...extra
    };
}

/**
 * Runs a client script: reads its config (a JSON object inline or the path of a file holding one; {@code validate}
 * throws on what the script cannot use), runs it under a watchdog, closes the client {@code client()} returns (after
 * {@code beforeClose}) and prints the summary, after {@code beforePrint}. The exit status is 0 only if every check
 * passed.
 */
export async function main({ summary, usage, validate, run, client, beforeClose, beforePrint }) {
    const close = async () => {
        try {
            await beforeClose?.();
            await client()?.close();
        } catch (e) {
            summary.clientErrors.push(`close: ${describe(e)}`);
        }
    };
    const finish = code => {
        beforePrint();
        process.stdout.write(JSON.stringify(summary, null, 2) + '\n', () => process.exit(code));
    };
    let config;
    try {
        config = readConfig(process.argv[2], usage);
        validate(config);
    } catch (e) {
        summary.failures.push(`config: ${e.message}`);
        finish(2);
        return;
    }
    summary.requestedEra = config.era ?? 'legacy';
    const timeoutMs = config.timeoutMs ?? 90_000;
    const watchdog = setTimeout(() => {
        summary.failures.push(`timed out after ${timeoutMs} ms`);
        void close().finally(() => finish(3));
    }, timeoutMs);
    try {
        await run(config);
    } catch (e) {
        summary.failures.push(`run: ${describe(e)}`);
    }
    const closeStarted = performance.now();
    await close();
    summary.closeMs = Math.round(performance.now() - closeStarted);
    clearTimeout(watchdog);
    summary.ok = summary.failures.length === 0 && Object.values(summary.checks).every(c => c.ok);
    finish(summary.ok ? 0 : 1);
}

function readConfig(arg, usage) {
    if (!arg) {
        throw new Error(`usage: ${usage} CONFIG (JSON, inline or a file)`);
    }
    const config = JSON.parse(arg.trimStart().startsWith('{') ? arg : readFileSync(arg, 'utf8'));
    if (config.npmDir && !existsSync(path.join(config.npmDir, 'node_modules'))) {
        throw new Error(`config.npmDir ${config.npmDir} has no node_modules`);
    }
    return config;
}

/**
 * Loads an SDK's client: "v1" (@modelcontextprotocol/sdk) or "v2" (@modelcontextprotocol/client), with the
 * transport classes named in {@code transports.v1} / {@code transports.v2} (class name to module).
 */
export function loadSdk(name, dir, summary, transports) {
    const require = createRequire(path.join(path.resolve(dir), 'package.json'));
    const versionOf = pkg => JSON.parse(readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    const classes = table => Object.fromEntries(Object.entries(table ?? {}).map(([cls, module]) => [cls, require(module)[cls]]));
    if (name === 'v1') {
        const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
        const types = require('@modelcontextprotocol/sdk/types.js');
        return {
            packageName: '@modelcontextprotocol/sdk',
            version: versionOf('@modelcontextprotocol/sdk'),
            Client,
            ...classes(transports.v1),
            onLogMessage: (client, handler) => client.setNotificationHandler(types.LoggingMessageNotificationSchema, handler),
            onElicit: (client, handler) => client.setRequestHandler(types.ElicitRequestSchema, handler),
            callTool: (client, params, options) => client.callTool(params, types.CallToolResultSchema, options),
            negotiatedVersion: () => summary.wire.initializeVersion ?? null,
            era: () => 'legacy'
        };
    }
    if (name === 'v2') {
        const { Client } = require('@modelcontextprotocol/client');
        return {
            packageName: '@modelcontextprotocol/client',
            version: versionOf('@modelcontextprotocol/client'),
            Client,
            ...classes(transports.v2),
            onLogMessage: (client, handler) => client.setNotificationHandler('notifications/message', handler),
            onElicit: (client, handler) => client.setRequestHandler('elicitation/create', handler),
            callTool: (client, params, options) => client.callTool(params, options),
            negotiatedVersion: client => client.getNegotiatedProtocolVersion() ?? null,
            era: client => client.getProtocolEra() ?? null
        };
    }
    throw new Error(`unknown sdk "${name}" (expected v1 or v2)`);
}

/**
 * Makes a client of the SDK that accepts elicitation and collects log messages, connects it through the transport
 * {@code makeTransport} returns (wrapped to record the wire) and checks the era it got. Returns the session the
 * checks use.
 */
export async function connect({ sdk, sdkName, era, summary, makeTransport }) {
    if (sdkName === 'v1' && era !== 'legacy') {
        throw new Error(`@modelcontextprotocol/sdk ${sdk.version} speaks only the legacy era; use sdk "v2" for era "${era}"`);
    }
    summary.sdk = { package: sdk.packageName, version: sdk.version };
    const clientOptions = { capabilities: { elicitation: {} } };
    if (sdkName === 'v2' && era !== 'legacy') {
        clientOptions.versionNegotiation = { mode: era === 'auto' ? 'auto' : { pin: era } };
    }
    const client = new sdk.Client({ name: 'tern-interop-test', version: '1.0.0' }, clientOptions);
    client.onerror = e => summary.clientErrors.push(describe(e));
    const session = { client, transport: null, summary, logMessages: [], elicitations: [], modern: false };
    sdk.onLogMessage(client, n => session.logMessages.push(n.params));
    sdk.onElicit(client, request => {
        session.elicitations.push(request.params);
        return { action: 'accept', content: { name: ELICITED_NAME } };
    });
    session.callTool = (params, options = {}) => sdk.callTool(client, params, { timeout: REQUEST_TIMEOUT_MS, ...options });

    session.transport = makeTransport();
    recordWire(session.transport, summary);
    const connectStarted = performance.now();
    await client.connect(session.transport, { timeout: REQUEST_TIMEOUT_MS });
    summary.connectMs = Math.round(performance.now() - connectStarted);
    summary.protocolVersion = sdk.negotiatedVersion(client);
    summary.era = sdk.era(client);
    summary.server = client.getServerVersion() ?? null;
    session.modern = summary.era === 'modern';
    if (era === 'legacy' && session.modern) {
        summary.failures.push('connect: asked for the legacy era but the connection is modern');
    }
    if (era !== 'legacy' && era !== 'auto' && summary.protocolVersion !== era) {
        summary.failures.push(`connect: pinned ${era} but negotiated ${summary.protocolVersion}`);
    }
    return session;
}

/**
 * Runs the named checks in order, each recorded in the summary. {@code extra} maps further check names to
 * functions (transport-specific checks); {@code session.sseResponses}, when the transport can tell, counts the
 * requests answered with an SSE stream; {@code session.cancelsByClosingStream} says that a 2026-07-28 client cancels
 * by closing the request's response stream instead of sending notifications/cancelled.
 */
export async function runChecks(names, session, extra = {}) {
    const common = commonChecks(session);
    for (const name of names) {
        const body = extra[name] ?? common[name];
        if (!body) {
            throw new Error(`unknown check "${name}"`);
        }
        if (name === 'elicitation') {
            session.elicitations.length = 0;
        }
        await check(session.summary, name, body);
    }
}

function commonChecks(session) {
    const { summary, callTool } = session;
    const modern = session.modern;

    async function checkTools() {
        const { tools } = await session.client.listTools({}, { timeout: REQUEST_TIMEOUT_MS });
        const names = tools.map(t => t.name);
        const getUser = tools.find(t => t.name === 'get_user');
        expect(getUser, `get_user is not listed (tools: ${names.join(', ')})`);
        expect(getUser.inputSchema?.type === 'object', 'get_user inputSchema.type is not "object"');
        expect(getUser.inputSchema?.properties?.id, 'get_user inputSchema has no "id" property');
        expect(getUser.outputSchema?.type === 'object', 'get_user has no object outputSchema');
        return { names, getUserRequired: getUser.inputSchema.required ?? [], getUserReadOnly: getUser.annotations?.readOnlyHint ?? null };
    }

    async function checkGetUser() {
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

    async function checkResource() {
        const result = await session.client.readResource({ uri: 'user://7' }, { timeout: REQUEST_TIMEOUT_MS });
        expect(result.contents?.length === 1, `expected 1 content, got ${result.contents?.length}`);
        const content = result.contents[0];
        expect(content.uri === 'user://7', `content uri is ${content.uri}`);
        expect(content.mimeType === 'application/json', `content mimeType is ${content.mimeType}`);
        const user = JSON.parse(content.text);
        expect(user.id === '7', `resource user id is ${user.id}`);
        const { resourceTemplates } = await session.client.listResourceTemplates({}, { timeout: REQUEST_TIMEOUT_MS });
        const templates = resourceTemplates.map(t => t.uriTemplate);
        expect(templates.includes('user://{id}'), `user://{id} is not a listed template (${templates.join(', ')})`);
        return { uri: content.uri, mimeType: content.mimeType, userId: user.id, templates };
    }

    async function checkPrompt() {
        const { prompts } = await session.client.listPrompts({}, { timeout: REQUEST_TIMEOUT_MS });
        const listed = prompts.find(p => p.name === 'summarize_user');
        expect(listed, 'summarize_user is not listed');
        const result = await session.client.getPrompt({ name: 'summarize_user', arguments: { id: '7' } }, { timeout: REQUEST_TIMEOUT_MS });
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

    async function checkCompletion() {
        const result = await session.client.complete({
            ref: { type: 'ref/resource', uri: 'user://{id}' },
            argument: { name: 'id', value: '99' }
        }, { timeout: REQUEST_TIMEOUT_MS });
        const values = result.completion.values;
        expect(values.length > 0 && values.every(v => v.startsWith('99')), `completions of "99": ${JSON.stringify(values)}`);
        return { values, total: result.completion.total ?? null, hasMore: result.completion.hasMore ?? null };
    }

    async function checkProgress() {
        // The SDK clients dispatch notifications a microtask late but responses at once, so progress written just
        // before the response can reach a handler that is already gone (typescript-sdk issue 2580). The tool waits
        // for acknowledge_progress, which this client calls once the last step has been delivered.
        const progress = [];
        let acknowledged = null;
        const streamsBefore = session.sseResponses?.();
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
        if (streamsBefore === undefined) {
            return { notifications: progress };
        }
        const sseResponses = session.sseResponses() - streamsBefore;
        expect(sseResponses >= 1, 'the progress did not come on an SSE response to the request');
        return { notifications: progress, sseResponses };
    }

    async function checkLogging() {
        const at = async level => {
            session.logMessages.length = 0;
            let result;
            if (modern) {
                // 2026-07-28: the level travels with each request.
                result = await callTool({ name: 'log_steps', arguments: { steps: 3 }, _meta: { [LOG_LEVEL_META]: level } });
            } else {
                await session.client.setLoggingLevel(level, { timeout: REQUEST_TIMEOUT_MS });
                result = await callTool({ name: 'log_steps', arguments: { steps: 3 } });
            }
            expect(!result.isError, `log_steps failed: ${JSON.stringify(result.content)}`);
            // log messages precede the response on its stream; give the notification dispatch a turn
            await new Promise(resolve => setImmediate(resolve));
            return session.logMessages.map(m => ({ level: m.level, logger: m.logger ?? null, data: m.data }));
        };
        const debug = await at('debug');
        expect(debug.length === 3, `at level debug: expected 3 log messages, got ${debug.length}`);
        expect(debug.map(m => m.level).join() === 'debug,info,warning', `at level debug: levels ${debug.map(m => m.level)}`);
        expect(debug.every((m, i) => m.logger === 'interop' && m.data?.step === i + 1), `log messages: ${JSON.stringify(debug)}`);
        const warning = await at('warning');
        expect(warning.length === 1 && warning[0].level === 'warning', `at level warning: ${JSON.stringify(warning)}`);
        return { atDebug: debug, atWarning: warning, levelVia: modern ? '_meta' : 'logging/setLevel' };
    }

    async function checkElicitation() {
        const inputRequiredBefore = summary.wire.inputRequired;
        const requestsBefore = summary.wire.received['elicitation/create'] ?? 0;
        const answersBefore = summary.wire.sent.response ?? 0;
        const result = await callTool({ name: 'ask_name', arguments: {} });
        expect(!result.isError, `ask_name failed: ${JSON.stringify(result.content)}`);
        const asked = session.elicitations;
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
            expect(answersPosted === 0, `2026-07-28 elicitation: the client sent ${answersPosted} JSON-RPC responses`);
        } else {
            expect(viaRequest === 1 && viaInputRequired === 0, `legacy elicitation: ${viaRequest} requests, ${viaInputRequired} input_required results`);
            expect(answersPosted === 1, `legacy elicitation: the client sent ${answersPosted} JSON-RPC responses`);
        }
        return {
            message: asked[0].message,
            requestedProperties: Object.keys(asked[0].requestedSchema?.properties ?? {}),
            result: result.structuredContent,
            via: viaInputRequired > 0 ? 'input_required' : 'elicitation/create',
            answersPosted
        };
    }

    async function checkCancel() {
        const viaStream = modern && session.cancelsByClosingStream === true;
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
        if (viaStream) {
            // 2026-07-28 over HTTP: a client cancels by closing the request's response stream.
            expect(sent === 0, `the client sent ${sent} notifications/cancelled in the 2026-07-28 era`);
        } else {
            expect(sent === 1, `the client sent ${sent} notifications/cancelled`);
        }
        expect(summary.wire.lateResponses === undefined, `a response arrived for the cancelled request: ${JSON.stringify(summary.wire.lateResponses)}`);
        return { clientError: describe(error), serverSaw: { count: seen.count - before.count, lastReason: seen.lastReason },
            cancelledNotificationsSent: sent, via: viaStream ? 'stream closed' : 'notifications/cancelled' };
    }

    return {
        tools: checkTools,
        get_user: checkGetUser,
        resource: checkResource,
        prompt: checkPrompt,
        completion: checkCompletion,
        progress: checkProgress,
        logging: checkLogging,
        elicitation: checkElicitation,
        cancel: checkCancel
    };
}

/** Counts the JSON-RPC messages crossing the transport, by method, and notes what the checks look at. */
export function recordWire(t, summary) {
    const wire = summary.wire;
    const pending = new Map();
    const cancelledIds = new Set();
    const count = (table, key) => {
        table[key] = (table[key] ?? 0) + 1;
    };
    const trace = (direction, message) => {
        summary.recentWire.push(`${direction} ${JSON.stringify(message).slice(0, 300)}`);
        if (summary.recentWire.length > 40) {
            summary.recentWire.shift();
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

export async function check(summary, name, body) {
    const started = performance.now();
    try {
        const observed = await body();
        summary.checks[name] = { ok: true, ...observed };
    } catch (e) {
        summary.checks[name] = { ok: false, error: describe(e) };
    }
    summary.checks[name].ms = Math.round(performance.now() - started);
}

export function expect(condition, message) {
    if (!condition) {
        throw new Error(message);
    }
}

export function safeJson(text) {
    try {
        return JSON.parse(text);
    } catch {
        return null;
    }
}

export function describe(e) {
    if (e === null || e === undefined) {
        return null;
    }
    if (e instanceof Error) {
        return `${e.name}: ${e.message}${e.code !== undefined ? ` (code ${e.code})` : ''}`;
    }
    return String(e);
}

