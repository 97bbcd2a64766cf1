package intents

import (
	"fmt"
	"testing"
)

func forwardRequest(value string) []byte {
	return []byte(fmt.Sprintf(`{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
"ForwardRequest":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"gas","type":"uint256"},{"name":"nonce","type":"uint256"},{"name":"data","type":"bytes"}]},
"primaryType":"ForwardRequest","domain":{"name":"MinimalForwarder","version":"0.0.1","chainId":8453,"verifyingContract":"0x00000000000000000000000000000000000000f0"},
"message":{"from":"0x00000000000000000000000000000000000000a1","to":"0x00000000000000000000000000000000000000b2","value":"%s","gas":"100000","nonce":"0","data":"0x"}}`, value))
}

func TestTypedDataSpend(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
		want    string
	}{
		{"forward request with value", forwardRequest("1000000000000000000"), "1000000000000000000"},
		{"forward request without value", forwardRequest("0"), "0"},
		{"not typed data", []byte(`{"nope":1}`), "0"},
		{"unknown standard", []byte(`{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"Mail":[{"name":"body","type":"string"}]},"primaryType":"Mail","domain":{"name":"x"},"message":{"body":"hi"}}`), "0"},
	}
	for _, tt := range tests {
		if got := typedDataSpend(tt.payload).String(); got != tt.want {
			t.Errorf("%s: typedDataSpend = %s, want %s", tt.name, got, tt.want)
		}
	}
}
