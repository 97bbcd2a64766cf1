package test

import (
	"testing"

	"github.com/opencustody/ocv/test/stack"
)

// TestAttackTypedDataSpendsAroundDailyLimit (issue 12, item 2): native
// value a typed-data message moves out of the signer's account (here an
// EIP-2771 forward request's value) counts on the day's counters like a
// transaction's, so that many signatures cannot add up past
// tx_daily_limit_eth.
func TestAttackTypedDataSpendsAroundDailyLimit(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("typed-spend@example.com")
	a := newSigningAttacker(t, s, owner, map[string]any{"eip712_default_policy": "allow", "tx_daily_limit_eth": "0.5"})
	withValue := func(wei string) map[string]any {
		td := forwardRequest(a.address, allowedTo, nil)
		td["message"].(map[string]any)["value"] = wei
		return td
	}
	requireSigned(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, withValue("400000000000000000"))), "0.4 ETH today")
	requireGuardrail(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, withValue("200000000000000000"))), "tx_daily_limit_eth")
	requireSigned(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, withValue("100000000000000000"))), "0.1 ETH more: 0.5 in all")
	requireSigned(t, s.Do("POST", a.signPath(), a.jwt, typedSign(8453, withValue("0"))), "no value moves nothing")
}
