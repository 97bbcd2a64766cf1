package evm

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
)

// PersonalMessageHash is the EIP-191 (version 0x45, personal_sign) digest:
// keccak256("\x19Ethereum Signed Message:\n" ‖ decimal len(msg) ‖ msg).
func PersonalMessageHash(msg []byte) []byte {
	prefix := "\x19Ethereum Signed Message:\n" + strconv.Itoa(len(msg))
	return crypto.Keccak256([]byte(prefix), msg)
}

// DecodeMessage turns a message as the API receives it into the bytes to
// sign: a string of "0x" (lower-case x) followed by an even number of hex
// digits is decoded ("0x" alone is the empty message); any other string is
// taken as its UTF-8 bytes. This matches ethers' isHexString/getBytes, which
// the conformance script uses.
func DecodeMessage(s string) []byte {
	if strings.HasPrefix(s, "0x") {
		if b, err := hex.DecodeString(s[2:]); err == nil {
			return b
		}
	}
	return []byte(s)
}
