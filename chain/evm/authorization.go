package evm

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"
)

// setCodeMagic is the EIP-7702 domain byte of an authorization digest.
const setCodeMagic = 0x05

// AuthorizationHash is the EIP-7702 digest an authority signs:
// keccak256(0x05 ‖ rlp([chain_id, address, nonce])).
func AuthorizationHash(a types.SetCodeAuthorization) common.Hash {
	enc, err := rlp.EncodeToBytes([]any{&a.ChainID, a.Address, a.Nonce})
	if err != nil {
		// Encoding a uint256, an address and a uint64 cannot fail.
		panic(fmt.Sprintf("evm: encoding authorization: %v", err))
	}
	return crypto.Keccak256Hash([]byte{setCodeMagic}, enc)
}

// Signed reports whether the entry carries y_parity, r and s.
func (a Authorization) Signed() bool {
	return a.YParity != nil || a.R != "" || a.S != ""
}

// SetCode converts the entry into go-ethereum's form (signature values zero
// when unsigned), checking every field.
func (a Authorization) SetCode() (types.SetCodeAuthorization, error) {
	return a.parse("authorization")
}

func (a Authorization) parse(field string) (types.SetCodeAuthorization, error) {
	addr, err := parseAddress(field+".address", a.Address)
	if err != nil {
		return types.SetCodeAuthorization{}, err
	}
	sc := types.SetCodeAuthorization{ChainID: *uint256.NewInt(a.ChainID), Address: addr, Nonce: a.Nonce}
	if !a.Signed() {
		return sc, nil
	}
	if a.YParity == nil || a.R == "" || a.S == "" {
		return types.SetCodeAuthorization{}, fieldErr(field, "y_parity, r and s must be given together")
	}
	if *a.YParity > 1 {
		return types.SetCodeAuthorization{}, fieldErr(field+".y_parity", "must be 0 or 1")
	}
	r, err := parseU256(field+".r", a.R)
	if err != nil {
		return types.SetCodeAuthorization{}, err
	}
	s, err := parseU256(field+".s", a.S)
	if err != nil {
		return types.SetCodeAuthorization{}, err
	}
	if r.IsZero() || s.IsZero() {
		return types.SetCodeAuthorization{}, fieldErr(field, "r and s must be non-zero")
	}
	sc.V, sc.R, sc.S = *a.YParity, *r, *s
	return sc, nil
}

func (r TxRequest) parseAuthorizations(p *parsedTx) error {
	if p.typ != types.SetCodeTxType {
		if len(r.AuthorizationList) > 0 {
			return fieldErr("authorization_list", "only allowed for type 4")
		}
		return nil
	}
	n := len(r.AuthorizationList)
	if n == 0 || n > MaxAuthorizations {
		return fieldErr("authorization_list", "want 1..%d entries for type 4, got %d", MaxAuthorizations, n)
	}
	p.auths = make([]types.SetCodeAuthorization, n)
	p.authSigned = make([]bool, n)
	for i, a := range r.AuthorizationList {
		f := fmt.Sprintf("authorization_list[%d]", i)
		sc, err := a.parse(f)
		if err != nil {
			return err
		}
		// An authorization we sign must name this transaction's chain:
		// chain_id 0 is valid on every chain and another chain's ID would
		// hand out a delegation usable where this request was never meant
		// to act. Third-party signatures are theirs to scope.
		if !a.Signed() && a.ChainID != r.ChainID {
			return fieldErr(f+".chain_id", "an unsigned authorization must use the transaction chain_id %d", r.ChainID)
		}
		p.auths[i], p.authSigned[i] = sc, a.Signed()
	}
	return nil
}

// UnsignedAuthorizations returns the indexes of authorization_list entries
// that carry no signature: the caller signs AuthorizationHash of each with
// the requesting key and stores it with SetAuthorizationSignature before
// BuildTx.
//
// When the requesting key is also the transaction sender, the entry's nonce
// must be the transaction nonce + 1 (the sender's nonce is bumped before
// authorizations are applied); that is the caller's policy to enforce.
func (r *TxRequest) UnsignedAuthorizations() []int {
	var idx []int
	for i, a := range r.AuthorizationList {
		if !a.Signed() {
			idx = append(idx, i)
		}
	}
	return idx
}

// SetAuthorizationSignature stores a 65-byte r‖s‖v signature (v in {0,1},
// low s, as RecoverableSignature returns) in the unsigned entry i.
func (r *TxRequest) SetAuthorizationSignature(i int, sig65 []byte) error {
	f := fmt.Sprintf("authorization_list[%d]", i)
	if i < 0 || i >= len(r.AuthorizationList) {
		return fieldErr(f, "no such entry")
	}
	if r.AuthorizationList[i].Signed() {
		return fieldErr(f, "already signed")
	}
	if err := checkSig65(sig65); err != nil {
		return fmt.Errorf("setting %s: %w", f, err)
	}
	v := sig65[64]
	a := &r.AuthorizationList[i]
	a.YParity = &v
	a.R = new(uint256.Int).SetBytes(sig65[:32]).Hex()
	a.S = new(uint256.Int).SetBytes(sig65[32:64]).Hex()
	return nil
}
