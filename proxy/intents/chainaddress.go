package intents

import (
	"crypto/ed25519"
	"fmt"

	"github.com/btcsuite/btcd/chaincfg"

	"github.com/opencustody/ocv/chain/bitcoin"
	"github.com/opencustody/ocv/chain/cardano"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/chain/solana"
	"github.com/opencustody/ocv/chain/tron"
	"github.com/opencustody/ocv/chain/xrp"
	"github.com/opencustody/ocv/keyvault"
)

// addressDerivers derive each chain family's address from the public key
// the enclave returned (a 65-byte secp256k1 point or a 32-byte Ed25519
// key). Mainnet forms: bitcoin P2WPKH, cardano enterprise addresses.
var addressDerivers = map[string]func(pub []byte) (string, error){
	"ethereum": func(pub []byte) (string, error) {
		a, err := evm.Address(keyvault.Secp256k1Point(pub))
		return a.Hex(), err
	},
	"bitcoin": func(pub []byte) (string, error) {
		return bitcoin.Address(keyvault.Secp256k1Point(pub), &chaincfg.MainNetParams)
	},
	"tron":    func(pub []byte) (string, error) { return tron.Address(keyvault.Secp256k1Point(pub)) },
	"solana":  func(pub []byte) (string, error) { return solana.Address(ed25519.PublicKey(pub)) },
	"xrp":     func(pub []byte) (string, error) { return xrp.Address(ed25519.PublicKey(pub)) },
	"cardano": func(pub []byte) (string, error) { return cardano.Address(ed25519.PublicKey(pub), true) },
}

// deriveAddress is the address of pub on chain.
func deriveAddress(chain string, pub []byte) (string, error) {
	derive, ok := addressDerivers[chain]
	if !ok {
		return "", fmt.Errorf("no address form for chain %q", chain)
	}
	addr, err := derive(pub)
	if err != nil {
		return "", fmt.Errorf("deriving %s address: %w", chain, err)
	}
	return addr, nil
}
