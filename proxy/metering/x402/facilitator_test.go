package x402_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering/x402"
)

func TestHTTPFacilitator(t *testing.T) {
	tests := map[string]struct {
		status  int
		body    string
		wantErr error
	}{
		"ok":                 {status: 200, body: `{"success":true,"transaction":"0xabc","network":"base","payer":"0x1"}`},
		"fail status":        {status: 502, body: `{"success":true}`, wantErr: x402.ErrSettlement},
		"fail success false": {status: 200, body: `{"success":false,"errorReason":"insufficient_funds"}`, wantErr: x402.ErrSettlement},
		"fail not json":      {status: 200, body: `<html>`, wantErr: x402.ErrSettlement},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got map[string]json.RawMessage
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/x402/settle" {
					http.NotFound(w, r)
					return
				}
				raw, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(raw, &got)
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			cfg := testConfig()
			cfg.FacilitatorURL = srv.URL + "/x402/"
			p := signed(t, cfg, newKey(t), nil)
			req := cfg.Requirements("https://api.test/v1/vaults")
			res, err := x402.NewHTTPFacilitator(cfg, srv.Client()).Settle(context.Background(), p, req)
			require.ErrorIs(t, err, tc.wantErr)

			require.JSONEq(t, `1`, string(got["x402Version"]))
			var gotPayload x402.Payload
			require.NoError(t, json.Unmarshal(got["paymentPayload"], &gotPayload))
			require.Equal(t, p, gotPayload)
			var gotReq x402.Requirements
			require.NoError(t, json.Unmarshal(got["paymentRequirements"], &gotReq))
			require.Equal(t, req, gotReq)
			if tc.wantErr == nil {
				require.Equal(t, "0xabc", res.Transaction)
				raw, err := base64.StdEncoding.DecodeString(res.Header())
				require.NoError(t, err)
				require.JSONEq(t, `{"success":true,"transaction":"0xabc","network":"base","payer":"0x1"}`, string(raw))
			}
		})
	}
}

func TestHTTPFacilitatorUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	cfg := testConfig()
	cfg.FacilitatorURL = url
	_, err := x402.NewHTTPFacilitator(cfg, nil).Settle(context.Background(), signed(t, cfg, newKey(t), nil),
		cfg.Requirements("https://api.test/"))
	require.ErrorIs(t, err, x402.ErrSettlement)
}
