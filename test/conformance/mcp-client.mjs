// Conformance client: drives `ocv mcp` with the official TypeScript MCP SDK
// (@modelcontextprotocol/sdk) over stdio, and over streamable HTTP when
// OCV_MCP_HTTP_URL names a running `ocv mcp --http` server.
//
// Run by TestMCPConformance (test/mcp_test.go):
//   node test/conformance/mcp-client.mjs
// Environment: OCV_BIN (the ocv binary), OCV_URL, OCV_CACERT, OCV_AGENT_ID,
// OCV_AGENT_KEY, OCV_VAULT_ID (passed on to `ocv mcp`), OCV_MCP_HTTP_URL
// (optional). Prints one JSON summary line; exits 1 on the first failure.
// Secret values are never printed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const TOOLS = [
  "list_vaults", "list_secrets", "get_secret", "put_secret", "describe_secret",
  "rotate_and_store", "get_env_bundle", "create_vault", "grant_access", "share_secret",
  "get_signing_keys", "get_balance", "sign_message", "sign_typed_data", "simulate_transaction",
  "sign_transaction", "send_transaction", "list_transactions",
];

function check(ok, msg) {
  if (!ok) throw new Error(msg);
}

function structured(result, tool) {
  check(!result.isError, `${tool} answered a tool error: ${JSON.stringify(result.content)}`);
  if (result.structuredContent) return result.structuredContent;
  const text = result.content.find((c) => c.type === "text");
  check(text, `${tool} answered no text content`);
  return JSON.parse(text.text);
}

async function exercise(client, label) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify([...TOOLS].sort()), `${label}: tools/list answered ${names}`);
  for (const t of tools) {
    check(t.inputSchema && t.inputSchema.type === "object", `${label}: ${t.name} has no object input schema`);
  }
  const put = tools.find((t) => t.name === "put_secret");
  check(put.inputSchema.required.includes("path") && put.inputSchema.required.includes("value"),
    `${label}: put_secret schema does not require path and value`);

  const path = `conformance/${label}/token`;
  const value = `conformance-${label}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const written = structured(
    await client.callTool({ name: "put_secret", arguments: { path, value, type: "token" } }), "put_secret");
  check(written.version >= 1 && written.path === path, `${label}: put_secret answered an unexpected shape`);
  check(!JSON.stringify(written).includes(value), `${label}: put_secret echoed the value`);

  const read = structured(await client.callTool({ name: "get_secret", arguments: { path } }), "get_secret");
  check(read.value === value, `${label}: get_secret did not return the value put_secret wrote`);
  check(read.version === written.version, `${label}: get_secret version differs from put_secret's`);

  const missing = await client.callTool({ name: "get_secret", arguments: { path: "conformance/does-not-exist" } });
  check(missing.isError === true, `${label}: reading a missing secret is not a tool error`);
  return { transport: label, tools: names.length, version: read.version };
}

async function run() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const results = [];

  const stdio = new Client({ name: "ocv-conformance", version: "1.0.0" });
  await stdio.connect(new StdioClientTransport({ command: process.env.OCV_BIN, args: ["mcp"], env, stderr: "inherit" }));
  try {
    results.push(await exercise(stdio, "stdio"));
  } finally {
    await stdio.close();
  }

  if (process.env.OCV_MCP_HTTP_URL) {
    const http = new Client({ name: "ocv-conformance", version: "1.0.0" });
    await http.connect(new StreamableHTTPClientTransport(new URL(process.env.OCV_MCP_HTTP_URL)));
    try {
      results.push(await exercise(http, "http"));
    } finally {
      await http.close();
    }
  }
  console.log(JSON.stringify({ ok: true, results }));
}

run().catch((err) => {
  console.error(`mcp conformance failed: ${err.message}`);
  process.exit(1);
});
