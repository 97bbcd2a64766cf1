// EVM signature cross-check: verifies with ethers v6 the signatures and raw
// transactions that OCV's Go package chain/evm produced.
//
// Run by TestEthersConformance (chain/evm/conformance_test.go):
//   node test/conformance/evm/verify.mjs < cases.json
//
// Input (one JSON document on stdin):
//   {"address": "0x…",                         expected signer of every case
//    "cases": [{"name": "…",
//               "kind": "personal_sign" | "typed_data" | "transaction",
//               "message": "…",                personal_sign: the string as sent
//                                              to the API ("0x" + even-length hex
//                                              means bytes, like DecodeMessage)
//               "typed_data": {domain, types, primaryType, message},
//               "signature": "0x<65 bytes>",   personal_sign and typed_data
//               "raw_tx": "0x…",               transaction
//               "tx_type": 2,                  transaction: expected type (optional)
//               "chain_id": 1}]}               transaction: expected chain (optional)
// Output: one JSON line per case {name, ok, recovered[, error]}. For type 4
// transactions every authorization must also recover to "address". Exits 1
// when any case fails or the input is malformed.
import { Transaction, getBytes, isHexString, verifyAuthorization, verifyMessage, verifyTypedData } from "ethers";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

// decodeMessage mirrors evm.DecodeMessage.
function decodeMessage(m) {
  if (isHexString(m) && m.length % 2 === 0) return getBytes(m);
  return m;
}

function same(a, b) {
  return typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();
}

function verifyCase(c, address) {
  switch (c.kind) {
    case "personal_sign": {
      const recovered = verifyMessage(decodeMessage(c.message), c.signature);
      return { recovered, ok: same(recovered, address) };
    }
    case "typed_data": {
      const { domain, types, message } = c.typed_data;
      const rest = { ...types };
      delete rest.EIP712Domain; // ethers derives the domain type itself
      const recovered = verifyTypedData(domain, rest, message, c.signature);
      return { recovered, ok: same(recovered, address) };
    }
    case "transaction": {
      const tx = Transaction.from(c.raw_tx);
      const recovered = tx.from;
      const problems = [];
      if (!same(recovered, address)) problems.push("sender mismatch");
      if (c.tx_type != null && tx.type !== c.tx_type) problems.push(`type ${tx.type}, want ${c.tx_type}`);
      if (c.chain_id != null && tx.chainId !== BigInt(c.chain_id)) problems.push(`chain ${tx.chainId}, want ${c.chain_id}`);
      for (const [i, auth] of (tx.authorizationList ?? []).entries()) {
        const authority = verifyAuthorization(auth, auth.signature);
        if (!same(authority, address)) problems.push(`authorization ${i} signed by ${authority}`);
      }
      return { recovered, ok: problems.length === 0, error: problems.join("; ") || undefined };
    }
    default:
      throw new Error(`unknown kind ${JSON.stringify(c.kind)}`);
  }
}

const input = await readStdin();
if (typeof input.address !== "string" || !Array.isArray(input.cases) || input.cases.length === 0) {
  console.error("input must be {address, cases: [...]}");
  process.exit(1);
}
let failed = false;
for (const c of input.cases) {
  let result;
  try {
    result = verifyCase(c, input.address);
  } catch (err) {
    result = { recovered: null, ok: false, error: String(err?.shortMessage ?? err?.message ?? err) };
  }
  failed ||= !result.ok;
  console.log(JSON.stringify({ name: c.name, ok: result.ok, recovered: result.recovered, ...(result.error ? { error: result.error } : {}) }));
}
process.exit(failed ? 1 : 0);
