// An MCP server built with the official TypeScript SDK (McpServer), for Tern's Java client to be tested against.
//
//   node ts-server.mjs CONFIG
//
// CONFIG is a JSON object:
//   transport   "stateful" (StreamableHTTPServerTransport with sessions), "stateless" (a new server and transport
//               per request, no sessions) or "stdio" (StdioServerTransport)
//   json        HTTP only: answer with application/json instead of SSE streams (default false)
//   npmDir      the directory whose node_modules holds the SDK (default: $TERN_NPM_DIR)
//
// Over HTTP it listens on 127.0.0.1 and an ephemeral port, and prints one line {"port": N} on stdout once ready.
//
// Tools: add {a, b} (structured result with an output schema), echo {text} (text), fail (an isError result),
// progress {steps} (notifications/progress for each step when the request has a progressToken).
// Resource test://greeting; prompt greet {name}.

import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';

const config = JSON.parse(process.argv[2] ?? '{}');
const npmDir = config.npmDir ?? process.env.TERN_NPM_DIR;
const require = createRequire(path.join(path.resolve(npmDir), 'package.json'));
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

function makeServer() {
    const server = new McpServer({ name: 'ts-sdk-interop', version: '1.0.0' });
    server.registerTool('add', {
        description: 'Adds two numbers.',
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() }
    }, async ({ a, b }) => ({
        content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }],
        structuredContent: { sum: a + b }
    }));
    server.registerTool('echo', {
        description: 'Echoes its text.',
        inputSchema: { text: z.string() }
    }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('fail', { description: 'Always fails as a tool error.' }, async () => ({
        isError: true,
        content: [{ type: 'text', text: 'failed on purpose' }]
    }));
    server.registerTool('progress', {
        description: 'Reports progress for each step.',
        inputSchema: { steps: z.number().int() }
    }, async ({ steps }, extra) => {
        const token = extra._meta?.progressToken;
        for (let i = 1; i <= steps; i++) {
            if (token !== undefined) {
                await extra.sendNotification({
                    method: 'notifications/progress',
                    params: { progressToken: token, progress: i, total: steps, message: `step ${i}` }
                });
            }
        }
        return { content: [{ type: 'text', text: `did ${steps} steps` }] };
    });
    server.registerResource('greeting', 'test://greeting', { mimeType: 'text/plain', description: 'A greeting.' },
        async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from the TypeScript SDK' }] }));
    server.registerPrompt('greet', {
        description: 'Greets someone.',
        argsSchema: { name: z.string() }
    }, ({ name }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }]
    }));
    return server;
}

if (config.transport === 'stdio') {
    const server = makeServer();
    await server.connect(new StdioServerTransport());
    console.error('ts-sdk-interop: serving over stdio');
} else {
    const sessions = new Map();
    const stateless = config.transport === 'stateless';
    const enableJsonResponse = config.json === true;

    const readBody = (req) => new Promise((resolve, reject) => {
        const chunks = [];
        req.on('data', c => chunks.push(c));
        req.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
                resolve(text ? JSON.parse(text) : undefined);
            } catch (e) {
                reject(e);
            }
        });
        req.on('error', reject);
    });

    const fail = (res, status, message) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
    };

    const httpServer = http.createServer(async (req, res) => {
        try {
            const body = req.method === 'POST' ? await readBody(req) : undefined;
            if (stateless) {
                if (req.method !== 'POST') {
                    return fail(res, 405, 'Method not allowed.');
                }
                const server = makeServer();
                const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
                res.on('close', () => {
                    void transport.close();
                    void server.close();
                });
                await server.connect(transport);
                await transport.handleRequest(req, res, body);
                return;
            }
            const sessionId = req.headers['mcp-session-id'];
            let transport = sessionId ? sessions.get(sessionId) : undefined;
            if (!transport) {
                if (sessionId) {
                    return fail(res, 404, 'Session not found');
                }
                if (req.method !== 'POST' || body?.method !== 'initialize') {
                    return fail(res, 400, 'Bad Request: No valid session ID provided');
                }
                transport = new StreamableHTTPServerTransport({
                    sessionIdGenerator: () => randomUUID(),
                    enableJsonResponse,
                    onsessioninitialized: id => sessions.set(id, transport)
                });
                transport.onclose = () => {
                    if (transport.sessionId) {
                        sessions.delete(transport.sessionId);
                    }
                };
                await makeServer().connect(transport);
            }
            await transport.handleRequest(req, res, body);
        } catch (e) {
            if (!res.headersSent) {
                fail(res, 500, `Internal error: ${e?.message ?? e}`);
            }
        }
    });
    httpServer.listen(0, '127.0.0.1', () => {
        process.stdout.write(JSON.stringify({ port: httpServer.address().port }) + '\n');
    });
    const stop = () => httpServer.close(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.stdin.on('end', stop);
    process.stdin.resume();
}
