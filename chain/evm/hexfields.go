package evm

import (
	"encoding/hex"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// parseAddress accepts "0x" + 40 hex digits. A mixed-case address must carry
// a valid EIP-55 checksum: a wrong one usually means a mistyped address.
func parseAddress(field, s string) (common.Address, error) {
	if len(s) != 42 || !has0x(s) {
		return common.Address{}, fieldErr(field, "want 0x followed by 40 hex digits")
	}
	raw, err := hex.DecodeString(s[2:])
	if err != nil {
		return common.Address{}, fieldErr(field, "not hex")
	}
	a := common.BytesToAddress(raw)
	body := s[2:]
	if strings.ToLower(body) != body && strings.ToUpper(body) != body && a.Hex() != s {
		return common.Address{}, fieldErr(field, "bad EIP-55 checksum")
	}
	return a, nil
}

// parseHexBytes accepts "" and "0x"-prefixed even-length hex.
func parseHexBytes(field, s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	if !has0x(s) {
		return nil, fieldErr(field, "want 0x-prefixed hex")
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, fieldErr(field, "not even-length hex")
	}
	return b, nil
}

// parseHash accepts "0x" + 64 hex digits.
func parseHash(field, s string) (common.Hash, error) {
	if len(s) != 66 {
		return common.Hash{}, fieldErr(field, "want 0x followed by 64 hex digits")
	}
	b, err := parseHexBytes(field, s)
	if err != nil {
		return common.Hash{}, err
	}
	return common.BytesToHash(b), nil
}

// parseU256 parses an optional quantity; "" gives nil.
func parseU256(field, s string) (*uint256.Int, error) {
	if s == "" {
		return nil, nil
	}
	q, err := ParseQuantity(s)
	if err != nil {
		return nil, fieldErr(field, "%v", err)
	}
	u, overflow := uint256.FromBig(q)
	if overflow {
		return nil, fieldErr(field, "does not fit in 256 bits")
	}
	return u, nil
}

func has0x(s string) bool {
	return len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}
