// EIP-712 digest cross-check: computes with ethers v6 TypedDataEncoder the
// digest of each typed-data document, for the standards OCV decodes
// (chain/evm TypedDataEffects), so that the Go digest (evm.TypedDataHash)
// is compared with an independent implementation.
//
// Run by TestTypedDataDigestsWithEthers (test/typeddata_conformance_test.go):
//   node test/conformance/evm/typeddata.mjs < cases.json
//
// Input (one JSON document on stdin):
//   {"cases": [{"name": "…", "typed_data": {types, primaryType, domain, message}}]}
// Output: one JSON line per case {name, hash[, error]}; ethers derives the
// domain type and the primary type itself, so EIP712Domain is dropped and
// ethers' primary type is checked against primaryType. Exits 1 when any case
// fails or the input is malformed.
import { TypedDataEncoder } from "ethers";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function hashCase(c) {
  const { domain, types, primaryType, message } = c.typed_data;
  const rest = { ...types };
  delete rest.EIP712Domain;
  const encoder = TypedDataEncoder.from(rest);
  if (encoder.primaryType !== primaryType) {
    throw new Error(`ethers derives primary type ${encoder.primaryType}, want ${primaryType}`);
  }
  return TypedDataEncoder.hash(domain, rest, message);
}

let failed = false;
try {
  const input = await readStdin();
  if (!Array.isArray(input.cases)) throw new Error("cases must be an array");
  for (const c of input.cases) {
    try {
      console.log(JSON.stringify({ name: c.name, hash: hashCase(c) }));
    } catch (err) {
      failed = true;
      console.log(JSON.stringify({ name: c.name, error: String(err?.message ?? err) }));
    }
  }
} catch (err) {
  failed = true;
  console.error(String(err?.message ?? err));
}
process.exit(failed ? 1 : 0);
