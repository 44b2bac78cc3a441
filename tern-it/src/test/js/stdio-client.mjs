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

import { COMMON_CHECKS, connect, loadSdk, main, newSummary, runChecks } from './interop-checks.mjs';

const summary = newSummary({ serverStderrTail: '' });
let serverStderr = '';
let session;

await main({ summary, usage: 'node stdio-client.mjs', validate, run, client: () => session?.client,
    beforePrint: () => {
        summary.serverStderrTail = serverStderr.slice(-4_000);
    } });

async function run(config) {
    const sdkName = config.sdk ?? 'v1';
    const era = config.era ?? 'legacy';
    const npmDir = config.npmDir ?? process.env.TERN_NPM_DIR;
    if (!npmDir) {
        throw new Error('npmDir is not set (config npmDir or TERN_NPM_DIR)');
    }
    const sdk = loadSdk(sdkName, npmDir, summary, {
        v1: { StdioClientTransport: '@modelcontextprotocol/sdk/client/stdio.js' },
        v2: { StdioClientTransport: '@modelcontextprotocol/client/stdio' }
    });
    session = await connect({
        sdk, sdkName, era, summary,
        makeTransport: () => {
            const transport = new sdk.StdioClientTransport({
                command: config.command,
                args: config.args ?? [],
                cwd: config.cwd,
                stderr: 'pipe'
            });
            transport.stderr?.on('data', chunk => {
                serverStderr = (serverStderr + chunk.toString('utf8')).slice(-8_000);
            });
            return transport;
        }
    });
    await runChecks(config.checks ?? COMMON_CHECKS, session);
}

function validate(config) {
    if (typeof config.command !== 'string' || config.command.length === 0) {
        throw new Error('config.command must be a non-empty string');
    }
}
