// derive.mjs computes chain addresses with each chain's official JavaScript SDK,
// so that test/conformance/addresses/addresses_test.go can compare them with the
// Go packages under chain/.
//
// stdin:  {"secp256k1": ["04…hex (65-byte uncompressed)", …], "ed25519": ["hex (32 bytes)", …]}
// stdout: {"bitcoin": […], "tron": […], "solana": […], "xrp": […], "cardano": […]}
//
// bitcoin and tron are derived from the secp256k1 keys, solana, xrp and cardano
// from the Ed25519 keys, each list in input order. Only public keys pass here.
import * as bitcoin from 'bitcoinjs-lib';
import { TronWeb, utils as tronUtils } from 'tronweb';
import { PublicKey } from '@solana/web3.js';
import { deriveAddress } from 'xrpl';
import * as CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { SigningKey, getBytes, hexlify } from 'ethers';

// readStdin returns all of standard input as a string.
async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

// bitcoinAddress: native SegWit P2WPKH of the compressed key (bitcoinjs-lib).
function bitcoinAddress(uncompressedHex) {
  const compressed = getBytes(SigningKey.computePublicKey('0x' + uncompressedHex, true));
  return bitcoin.payments.p2wpkh({ pubkey: compressed, network: bitcoin.networks.bitcoin }).address;
}

// tronAddress: keccak256(X‖Y)[12:] behind 0x41, base58check (TronWeb).
function tronAddress(uncompressedHex) {
  const addrBytes = tronUtils.crypto.computeAddress(getBytes('0x' + uncompressedHex));
  return TronWeb.address.fromHex(hexlify(Uint8Array.from(addrBytes)).slice(2));
}

// solanaAddress: base58 of the 32-byte Ed25519 key (@solana/web3.js).
function solanaAddress(edHex) {
  return new PublicKey(Buffer.from(edHex, 'hex')).toBase58();
}

// xrpAddress: classic address of the "ED"-prefixed key (xrpl).
function xrpAddress(edHex) {
  return deriveAddress('ED' + edHex.toUpperCase());
}

// cardanoAddress: Shelley enterprise address on mainnet (network id 1),
// payment key hash = blake2b-224(key), no stake part.
function cardanoAddress(edHex) {
  const pub = CSL.PublicKey.from_bytes(Buffer.from(edHex, 'hex'));
  const cred = CSL.Credential.from_keyhash(pub.hash());
  return CSL.EnterpriseAddress.new(1, cred).to_address().to_bech32();
}

const input = JSON.parse(await readStdin());
const secp = input.secp256k1 ?? [];
const ed = input.ed25519 ?? [];
const out = {
  bitcoin: secp.map(bitcoinAddress),
  tron: secp.map(tronAddress),
  solana: ed.map(solanaAddress),
  xrp: ed.map(xrpAddress),
  cardano: ed.map(cardanoAddress),
};
process.stdout.write(JSON.stringify(out) + '\n');
