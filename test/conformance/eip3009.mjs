// EIP-3009 cross-check: signs and verifies TransferWithAuthorization typed
// data with ethers v6, the reference the Go verifier
// (proxy/metering/x402) is checked against.
//
// Run by TestX402EthersConformance (test/x402_conformance_test.go):
//   node test/conformance/eip3009.mjs sign   < request.json
//   node test/conformance/eip3009.mjs verify < request.json
//
// Request (JSON on stdin):
//   {"privateKey": "0x…",                     (sign only)
//    "signature": "0x…",                      (verify only)
//    "domain": {"name", "version", "chainId", "verifyingContract"},
//    "authorization": {"from", "to", "value", "validAfter", "validBefore", "nonce"}}
// Answer (one JSON line on stdout):
//   sign:   {"signature": "0x…", "digest": "0x…", "address": "0x…"}
//   verify: {"recovered": "0x…", "digest": "0x…"}
// Exits 1 with the error on stderr when the request is malformed. The
// private key is never printed.
import { TypedDataEncoder, Wallet, verifyTypedData } from "ethers";

const TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
};

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function typedData(req) {
  const d = req.domain ?? {};
  const a = req.authorization ?? {};
  const domain = {
    name: d.name,
    version: d.version,
    chainId: BigInt(d.chainId),
    verifyingContract: d.verifyingContract,
  };
  const message = {
    from: a.from,
    to: a.to,
    value: BigInt(a.value),
    validAfter: BigInt(a.validAfter),
    validBefore: BigInt(a.validBefore),
    nonce: a.nonce,
  };
  return { domain, message };
}

async function main() {
  const mode = process.argv[2];
  const req = await readStdin();
  const { domain, message } = typedData(req);
  const digest = TypedDataEncoder.hash(domain, TYPES, message);
  let out;
  switch (mode) {
    case "sign": {
      let wallet;
      try {
        wallet = new Wallet(req.privateKey);
      } catch {
        throw new Error("privateKey is not a valid secp256k1 private key"); // never echo the key
      }
      const signature = await wallet.signTypedData(domain, TYPES, message);
      out = { signature, digest, address: wallet.address };
      break;
    }
    case "verify": {
      const recovered = verifyTypedData(domain, TYPES, message, req.signature);
      out = { recovered, digest };
      break;
    }
    default:
      throw new Error(`unknown mode ${JSON.stringify(mode)}: want sign or verify`);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  // A bad private key is reported without its value (see sign above).
  process.stderr.write(`eip3009: ${err && err.message ? err.message : err}\n`);
  process.exit(1);
});
