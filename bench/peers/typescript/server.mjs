// A benchmark peer: the official MCP TypeScript SDK serving the user directory's get_user and echo tools over
// Streamable HTTP at http://127.0.0.1:PORT/mcp, written the way the SDK's documentation sets servers up
// (createMcpExpressApp, McpServer.registerTool with zod schemas, StreamableHTTPServerTransport).
//
//   node server.mjs stateless PORT   no sessions: a new server and transport for every request
//   node server.mjs sessions PORT    initialize opens a session (Mcp-Session-Id); one transport per session
//
// Nothing is logged while serving.
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { generateUsers } from './users.mjs';

const [mode, portText] = process.argv.slice(2);
const port = Number(portText);
if (!['stateless', 'sessions'].includes(mode) || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: node server.mjs stateless|sessions PORT');
  process.exit(2);
}

const users = generateUsers(1000);

const Address = z.strictObject({
  street: z.string().optional(),
  city: z.string().optional(),
  postalCode: z.string().optional(),
  country: z.string().optional(),
});
const User = z.strictObject({
  id: z.string().optional(),
  username: z.string().optional(),
  name: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  title: z.string().optional(),
  department: z.string().optional(),
  address: Address.optional(),
  roles: z.array(z.string()).optional(),
  active: z.boolean(),
  createdAt: z.string().optional(),
});

function createServer() {
  const server = new McpServer({ name: 'peer-typescript-sdk', version: '0.1.0' });
  server.registerTool(
    'get_user',
    {
      title: 'Get user',
      description: 'Fetch one user by id.',
      inputSchema: z.strictObject({ id: z.string().describe('The user\'s id, e.g. "42"') }),
      outputSchema: User,
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ id }) => {
      const user = users.get(id);
      if (!user) {
        return { content: [{ type: 'text', text: `No user with id ${id}` }], isError: true };
      }
      return { content: [{ type: 'text', text: JSON.stringify(user) }], structuredContent: user };
    },
  );
  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Return the text it is given.',
      inputSchema: z.strictObject({ text: z.string().describe('The text to return') }),
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

const app = createMcpExpressApp({ host: '127.0.0.1' });

function jsonRpcError(res, status, message) {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

if (mode === 'stateless') {
  app.post('/mcp', async (req, res) => {
    const server = createServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch {
      if (!res.headersSent) {
        jsonRpcError(res, 500, 'Internal server error');
      }
    }
  });
  const notAllowed = (req, res) => jsonRpcError(res, 405, 'Method not allowed.');
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
} else {
  const transports = new Map();
  app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || !isInitializeRequest(req.body)) {
        jsonRpcError(res, sessionId ? 404 : 400, sessionId ? 'Session not found' : 'Bad Request: No valid session ID provided');
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) {
          transports.delete(transport.sessionId);
        }
      };
      await createServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  });
  const sessionRequest = async (req, res) => {
    const transport = transports.get(req.headers['mcp-session-id']);
    if (!transport) {
      jsonRpcError(res, 404, 'Session not found');
      return;
    }
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', sessionRequest);
  app.delete('/mcp', sessionRequest);
}

const listener = app.listen(port, '127.0.0.1', (error) => {
  if (error) {
    console.error(`peer-typescript-sdk: cannot listen on 127.0.0.1:${port}: ${error.message}`);
    process.exit(1);
  }
  console.error(`peer-typescript-sdk: serving ${mode} at http://127.0.0.1:${listener.address().port}/mcp`);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(0));
}
