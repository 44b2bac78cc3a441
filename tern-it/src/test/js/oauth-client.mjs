// Runs the official TypeScript SDK client's OAuth flow against an MCP server that is an OAuth 2.1 resource server,
// and prints what it saw as JSON.
//
//   node oauth-client.mjs CONFIG
//
// CONFIG is a JSON object, inline or the path of a file holding it:
//   url         the MCP endpoint, e.g. http://127.0.0.1:PORT/mcp
//   npmDir      the directory whose node_modules holds @modelcontextprotocol/sdk (default: $TERN_NPM_DIR)
//   clientId    the OAuth client id to use (registered ahead, so no dynamic registration)
//   timeoutMs   bound on the whole run (default 90000)
//
// The client connects without a token: the SDK's transport gets 401, reads the protected resource metadata and the
// authorization server's metadata, and asks the provider below to send the user to the authorization endpoint. The
// script follows that URL itself (the authorization server logs the user in without a page), takes the code from the
// redirect, and lets the transport exchange it for a token (PKCE, RFC 8707 resource). Then it lists the tools and
// calls get_user; a 403 insufficient_scope there makes the SDK ask for the named scope (step-up), which goes the same
// way. Every HTTP exchange of the SDK goes through a recording fetch, so the summary tells the whole flow.
//
// stdout gets one JSON summary; the exit status is 0 only if the flow ended with the tool's answer.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const summary = { ok: false, failures: [], exchanges: [], authorizations: [], tools: [], getUser: null };

function finish(code) {
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n', () => process.exit(code));
}

let config;
try {
    const arg = process.argv[2] ?? '';
    config = JSON.parse(arg.trim().startsWith('{') ? arg : readFileSync(arg, 'utf8'));
} catch (e) {
    summary.failures.push(`config: ${e.message}`);
    finish(2);
}
const watchdog = setTimeout(() => {
    summary.failures.push('timed out');
    finish(3);
}, config.timeoutMs ?? 90_000);

const npmDir = config.npmDir ?? process.env.TERN_NPM_DIR;
const require = createRequire(path.join(path.resolve(npmDir), 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { UnauthorizedError } = require('@modelcontextprotocol/sdk/client/auth.js');
const types = require('@modelcontextprotocol/sdk/types.js');

const recordingFetch = async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const response = await fetch(input, init);
    summary.exchanges.push({ method, path: url.pathname, status: response.status,
        wwwAuthenticate: response.headers.get('www-authenticate') ?? undefined });
    return response;
};

const redirectUrl = 'http://127.0.0.1:1/oauth/callback';
let pendingAuthorization = null;
let saved = { tokens: undefined, verifier: undefined };
const provider = {
    get redirectUrl() {
        return redirectUrl;
    },
    get clientMetadata() {
        return { client_name: 'tern-it', redirect_uris: [redirectUrl], grant_types: ['authorization_code'],
            response_types: ['code'], token_endpoint_auth_method: 'none' };
    },
    clientInformation: () => ({ client_id: config.clientId }),
    tokens: () => saved.tokens,
    // A refresh cannot widen a grant (RFC 6749 section 6), so this client keeps no refresh token: a step-up is then a
    // new authorization for the scope the server named, which is what the test is about.
    saveTokens: tokens => {
        const { refresh_token: dropped, ...kept } = tokens;
        saved.tokens = kept;
    },
    redirectToAuthorization: url => {
        pendingAuthorization = new URL(url);
    },
    saveCodeVerifier: verifier => {
        saved.verifier = verifier;
    },
    codeVerifier: () => saved.verifier
};

/** Plays the user at the authorization endpoint the SDK sent them to; returns the code from the redirect. */
async function authorize() {
    const url = pendingAuthorization;
    pendingAuthorization = null;
    if (!url) {
        throw new Error('the SDK asked for authorization without an authorization URL');
    }
    summary.authorizations.push({ path: url.pathname, scope: url.searchParams.get('scope'),
        resource: url.searchParams.get('resource'), codeChallengeMethod: url.searchParams.get('code_challenge_method') });
    // mock-oauth2-server's authorization endpoint takes OpenID Connect requests only: the user agent adds openid.
    const asked = new URL(url);
    asked.searchParams.set('scope', `openid ${url.searchParams.get('scope') ?? ''}`.trim());
    const response = await fetch(asked, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (!location) {
        throw new Error(`the authorization endpoint answered ${response.status} without a redirect: `
            + (await response.text()).slice(0, 300));
    }
    const code = new URL(location).searchParams.get('code');
    if (!code) {
        throw new Error(`no code in the redirect ${location}`);
    }
    return code;
}

const makeTransport = () => new StreamableHTTPClientTransport(new URL(config.url),
    { authProvider: provider, fetch: recordingFetch });
let client = new Client({ name: 'tern-it-oauth', version: '1.0.0' });
let transport = makeTransport();
try {
    try {
        await client.connect(transport);
    } catch (e) {
        if (!(e instanceof UnauthorizedError)) {
            throw e;
        }
        await transport.finishAuth(await authorize());
        client = new Client({ name: 'tern-it-oauth', version: '1.0.0' });
        transport = makeTransport();
        await client.connect(transport);
    }
    const tools = await client.listTools();
    summary.tools = tools.tools.map(t => t.name);
    const call = () => client.callTool({ name: 'get_user', arguments: { id: '7' } }, types.CallToolResultSchema);
    let result;
    try {
        result = await call();
    } catch (e) {
        if (!(e instanceof UnauthorizedError)) {
            throw e;
        }
        await transport.finishAuth(await authorize());
        result = await call();
    }
    summary.getUser = result.structuredContent ?? null;
    await client.close();
    summary.ok = summary.getUser?.id === '7';
} catch (e) {
    summary.failures.push(`${e?.name ?? 'Error'}: ${e?.message ?? e}`);
}
clearTimeout(watchdog);
finish(summary.ok ? 0 : 1);
