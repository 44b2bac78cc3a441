// One real MCP exchange with a server of the peer comparison, over Streamable HTTP on 127.0.0.1:
//
//   legacy: initialize (2025-11-25), notifications/initialized, then requests carrying the Mcp-Session-Id the
//           server gave, or none if it gave none (a stateless server); the session is deleted at the end
//   modern: 2026-07-28 requests, each on its own: MCP-Protocol-Version, Mcp-Method and Mcp-Name headers and the
//           protocol version, client info and capabilities in params._meta; no initialize
//
// then tools/call get_user (a user record, its text block the same JSON as its structuredContent), tools/list (the
// schemas are compared with shared/tools.json; differences and missing tools are reported, not fatal) and
// tools/call echo where the server has it. Answers may be JSON or SSE. Prints a JSON summary on stdout; exits 1 if
// an exchange fails or get_user answers anything but the record.
//
//   node probe.mjs --url URL [--era legacy|modern] [--id 42[,7,...]] [--expect FILE] [--save FILE]
//                  [--wait-ms N] [--started-at-ms EPOCH_MS] [--keep-session] [--minimal] [--quiet]
//
// --wait-ms retries the first request until the server answers (connection refused, 5xx) or the time is up;
// --started-at-ms makes the summary carry startupMs, from then to the end of the first successful get_user;
// --id asks get_user for each user listed; --save writes the answers' content and structuredContent to FILE, by id;
// --expect compares them with such a file; --keep-session leaves a legacy session open after a successful
// exchange and puts its id in the summary (sessionId), for a load generator to send requests in it; --minimal is for
// an endpoint that answers get_user alone, as text content only: no structuredContent expected, no tools/list, no echo,
// and --expect compares the text alone.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const REQUEST_TIMEOUT_MS = 10_000;
const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';

function parseArgs(argv) {
  const options = { era: 'legacy', ids: ['42'], waitMs: 0, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) {
        throw new Error(`${name} needs a value`);
      }
      return argv[++i];
    };
    switch (name) {
      case '--url': options.url = value(); break;
      case '--era': options.era = value(); break;
      case '--id': options.ids = value().split(',').map((id) => id.trim()).filter((id) => id); break;
      case '--expect': options.expect = value(); break;
      case '--save': options.save = value(); break;
      case '--wait-ms': options.waitMs = Number(value()); break;
      case '--started-at-ms': options.startedAtMs = Number(value()); break;
      case '--keep-session': options.keepSession = true; break;
      case '--minimal': options.minimal = true; break;
      case '--quiet': options.quiet = true; break;
      default: throw new Error(`unknown option ${name}`);
    }
  }
  if (!options.url) {
    throw new Error('--url is required');
  }
  const host = new URL(options.url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(host)) {
    throw new Error(`only loopback servers are probed, not ${host}`);
  }
  if (!['legacy', 'modern'].includes(options.era)) {
    throw new Error(`--era: ${options.era} (expected: legacy or modern)`);
  }
  return options;
}

class Client {
  constructor(url, era) {
    this.url = url;
    this.era = era;
    this.sessionId = undefined;
    this.nextId = 1;
  }

  headers(method, name) {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.era === 'modern') {
      headers['mcp-protocol-version'] = MODERN_VERSION;
      headers['mcp-method'] = method;
      if (name !== undefined) {
        headers['mcp-name'] = name;
      }
    } else if (method !== 'initialize') {
      headers['mcp-protocol-version'] = LEGACY_VERSION;
      if (this.sessionId) {
        headers['mcp-session-id'] = this.sessionId;
      }
    }
    return headers;
  }

  async request(method, params = {}, name = undefined) {
    const id = this.nextId++;
    if (this.era === 'modern') {
      params = {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'tern-peers-probe', version: '0.1.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      };
    }
    const response = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(method, name),
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = await response.text();
    if (response.status !== 200) {
      const error = new Error(`${method}: HTTP ${response.status}: ${body.slice(0, 300)}`);
      error.retryable = response.status >= 500 || response.status === 404;
      throw error;
    }
    const session = response.headers.get('mcp-session-id');
    if (session) {
      this.sessionId = session;
    }
    const message = findResponse(response.headers.get('content-type') ?? '', body, id);
    if (message.error) {
      throw new Error(`${method}: error ${JSON.stringify(message.error)}`);
    }
    return { result: message.result, bytes: Buffer.byteLength(body), contentType: response.headers.get('content-type') };
  }

  async notify(method) {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(method),
      body: JSON.stringify({ jsonrpc: '2.0', method }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    if (response.status !== 202 && response.status !== 200 && response.status !== 204) {
      throw new Error(`${method}: HTTP ${response.status}`);
    }
  }

  async close() {
    if (this.sessionId) {
      const response = await fetch(this.url, {
        method: 'DELETE',
        headers: this.headers('DELETE'),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await response.arrayBuffer();
    }
  }
}

/** The JSON-RPC response with {@code id} in a JSON body or among the events of an SSE body. */
function findResponse(contentType, body, id) {
  const candidates = [];
  if (contentType.startsWith('text/event-stream')) {
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart());
      if (data.length > 0) {
        candidates.push(JSON.parse(data.join('\n')));
      }
    }
  } else {
    const parsed = JSON.parse(body);
    candidates.push(...(Array.isArray(parsed) ? parsed : [parsed]));
  }
  const match = candidates.find((message) => message && message.id === id && ('result' in message || 'error' in message));
  if (!match) {
    throw new Error(`no response with id ${id} in: ${body.slice(0, 300)}`);
  }
  return match;
}

/** Differences between a served schema and the reference one; "$schema" (a dialect tag some SDKs add) aside. */
function schemaDifferences(tool, served, reference) {
  const differences = [];
  for (const key of ['inputSchema', 'outputSchema']) {
    const { $schema, ...actual } = served[key] ?? {};
    const expected = reference[key] ?? {};
    if (canonical(actual) !== canonical(expected)) {
      differences.push(`${tool}.${key}: served ${JSON.stringify(served[key])}`);
    }
  }
  return differences;
}

function canonical(value) {
  if (Array.isArray(value)) {
    return `[${value.map(canonical).join(',')}]`;
  }
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

async function exchange(options) {
  const client = new Client(options.url, options.era);
  const summary = { url: options.url, era: options.era };
  if (options.era === 'legacy') {
    const init = await client.request('initialize', {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: { name: 'tern-peers-probe', version: '0.1.0' },
    });
    summary.server = init.result.serverInfo;
    summary.protocolVersion = init.result.protocolVersion;
    summary.session = client.sessionId !== undefined;
    await client.notify('notifications/initialized');
  }
  try {
    const expected = options.expect ? JSON.parse(readFileSync(options.expect, 'utf8')) : undefined;
    const records = {};
    for (const id of options.ids) {
      const call = await client.request('tools/call', { name: 'get_user', arguments: { id } }, 'get_user');
      if (options.startedAtMs && summary.startupMs === undefined) {
        summary.startupMs = Date.now() - options.startedAtMs;
      }
      const result = call.result;
      const text = result.content?.[0]?.text;
      if (result.isError || typeof text !== 'string' || !(result.structuredContent || options.minimal)) {
        throw new Error(`get_user ${id}: not a user record: ${JSON.stringify(result).slice(0, 300)}`);
      }
      if (options.minimal) {
        if (JSON.parse(text).id !== id) {
          throw new Error(`get_user ${id}: not the user asked for: ${text.slice(0, 300)}`);
        }
      } else if (canonical(JSON.parse(text)) !== canonical(result.structuredContent)) {
        throw new Error(`get_user ${id}: the text block and structuredContent differ`);
      }
      if (summary.getUser === undefined) {
        summary.getUser = {
          id,
          contentType: call.contentType,
          responseBytes: call.bytes,
          textBytes: Buffer.byteLength(text),
          structuredBytes: result.structuredContent ? Buffer.byteLength(JSON.stringify(result.structuredContent)) : 0,
        };
      }
      const record = { content: result.content, structuredContent: result.structuredContent };
      records[id] = record;
      if (expected) {
        const reference = expected[id];
        if (!reference) {
          throw new Error(`get_user ${id}: no reference answer in ${options.expect}`);
        }
        // Key order inside the content block may differ between JSON libraries; the record's text may not.
        const same = options.minimal || canonical(record) === canonical(reference);
        if (!same || text !== reference.content?.[0]?.text) {
          throw new Error(`get_user ${id}: answer differs from the reference\n  served:   ${JSON.stringify(record)}\n  expected: ${JSON.stringify(reference)}`);
        }
      }
    }
    summary.users = options.ids.length;
    if (expected) {
      summary.sameAsReference = true;
    }
    if (options.save) {
      writeFileSync(options.save, JSON.stringify(records) + '\n');
    }

    if (options.minimal) {
      summary.ok = true;
      return summary;
    }
    const list = await client.request('tools/list');
    const reference = JSON.parse(readFileSync(join(here, 'shared', 'tools.json'), 'utf8')).tools;
    summary.schemaDifferences = [];
    summary.missingTools = [];
    for (const expected of reference) {
      const served = list.result.tools.find((tool) => tool.name === expected.name);
      if (served) {
        summary.schemaDifferences.push(...schemaDifferences(expected.name, served, expected));
      } else {
        summary.missingTools.push(expected.name);
      }
    }

    if (!summary.missingTools.includes('echo')) {
      const echo = await client.request('tools/call', { name: 'echo', arguments: { text: 'ping' } }, 'echo');
      if (echo.result.isError || echo.result.content?.[0]?.text !== 'ping') {
        throw new Error(`echo: unexpected answer ${JSON.stringify(echo.result)}`);
      }
    }
    if (options.keepSession && client.sessionId) {
      summary.sessionId = client.sessionId;
    }
  } finally {
    if (summary.sessionId === undefined) {
      await client.close().catch(() => {});
    }
  }
  summary.ok = true;
  return summary;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    try {
      const summary = await exchange(options);
      process.stdout.write(JSON.stringify(summary) + '\n');
      return;
    } catch (error) {
      const refused = error.cause?.code === 'ECONNREFUSED' || error.cause?.code === 'ECONNRESET' || error.retryable;
      if (refused && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        continue;
      }
      const message = error.cause ? `${error.message} (${error.cause.code ?? error.cause.message})` : error.message;
      if (!options.quiet) {
        process.stderr.write(`probe ${options.url}: ${message}\n`);
      }
      process.stdout.write(JSON.stringify({ url: options.url, era: options.era, ok: false, error: message }) + '\n');
      process.exitCode = 1;
      return;
    }
  }
}

await main();
