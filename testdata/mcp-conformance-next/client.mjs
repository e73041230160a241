// The conformance suite's client: maps the scenario the suite names (MCP_CONFORMANCE_SCENARIO)
// to alertchat commands against the suite's server (the URL, the last argument). Run by
// the e2e conformance test with ALERTCHAT_BIN set to the built binary (this copy: the newest suite).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const bin = process.env.ALERTCHAT_BIN;
const here = dirname(fileURLToPath(import.meta.url));
// The "browser" follows the authorization server's redirect to alertchat's loopback.
const env = { ...process.env, BROWSER: `${process.execPath} ${join(here, 'browser.mjs')}` };

function run(...args) {
  const r = spawnSync(bin, args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// An OAuth server is configured as a user would: "auth": "oauth", with the client the suite
// pre-registered when it names one, and the suite's client ID metadata document URL.
function oauthConfig(issuer) {
  const oauth = { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' };
  if (issuer) oauth.issuer = issuer;
  if (context.client_id) oauth.clientId = context.client_id;
  if (context.client_secret) oauth.clientSecret = context.client_secret;
  const dir = mkdtempSync(join(tmpdir(), 'alertchat-conformance-'));
  const file = join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { conformance: { httpUrl: url, auth: 'oauth', oauth } } }));
  return file;
}

// issuerOf is the first authorization server the MCP server's protected-resource metadata names.
async function issuerOf(serverUrl) {
  const u = new URL(serverUrl);
  const r = await fetch(`${u.origin}/.well-known/oauth-protected-resource${u.pathname}`);
  return (await r.json()).authorization_servers?.[0];
}

switch (scenario) {
  case 'initialize':
    run('mcp', 'tools', url);
    break;
  case 'tools_call':
    run('mcp', 'call', url, 'add_numbers', '{"a": 5, "b": 3}');
    break;
  case 'elicitation-sep1034-client-defaults':
    run('mcp', 'call', '--elicit', 'accept-defaults', url, 'test_client_elicitation_defaults', '{}');
    break;
  case 'sse-retry':
    run('mcp', 'call', url, 'test_reconnection', '{}');
    break;
  default:
    if (!scenario.startsWith('auth/')) {
      // The scenarios of the draft specification (request metadata, HTTP headers, JSON Schema,
      // request state): the calls the suite names (its context's toolCalls), else what a user
      // does with a server: list its tools and call each one. The echo tool of the JSON Schema
      // scenario gets the input schema of the scenario's other tool, as 'mcp tools -o json'
      // printed it (the schema as the server sent it).
      if (Array.isArray(context.toolCalls)) {
        for (const c of context.toolCalls) {
          spawnSync(bin, ['mcp', 'call', url, c.name, JSON.stringify(c.arguments ?? {})], { env, stdio: ['ignore', 'inherit', 'inherit'] });
        }
        break;
      }
      const r = spawnSync(bin, ['mcp', 'tools', '-o', 'json', url], { env, encoding: 'utf8' });
      if (r.status !== 0) {
        process.stderr.write(r.stderr ?? '');
        process.exit(r.status ?? 1);
      }
      const tools = JSON.parse(r.stdout) ?? [];
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      for (const tool of tools) {
        const args = tool.name === 'json_schema_echo' ? { schema: focal?.inputSchema ?? {} } : {};
        spawnSync(bin, ['mcp', 'call', '--elicit', 'accept-defaults', url, tool.name, JSON.stringify(args)], { env, stdio: ['ignore', 'inherit', 'inherit'] });
      }
      break;
    }
    {
      // alertchat sends a client ID metadata document's code on only when the authorization
      // server returned it with its RFC 9207 "iss", or is the issuer the config pins: else a
      // hostile server's redirect to an honest one would get it (the mix-up defence). The
      // suite's basic-cimd server sends no "iss", so the user pins its issuer, as alertchat's
      // refusal tells them to, read from the server's protected-resource metadata.
      const cfg = oauthConfig(scenario === 'auth/basic-cimd' ? await issuerOf(url) : undefined);
      run('mcp', 'login', '--mcp-config', cfg, 'conformance');
      run('mcp', 'call', '--mcp-config', cfg, 'conformance', 'test-tool', '{}');
    }
}
