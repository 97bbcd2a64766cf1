package edgetls

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestACMEConfigValidate(t *testing.T) {
	srv := httptest.NewTLSServer(nil)
	defer srv.Close()
	roots := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	valid := func() ACMEConfig {
		return ACMEConfig{Domains: []string{"vault.example.com"}, Email: "ops@example.com", AgreeTerms: true}
	}
	cases := map[string]struct {
		edit    func(c *ACMEConfig)
		wantErr error
	}{
		"valid defaults": {edit: func(*ACMEConfig) {}},
		"valid test CA": {edit: func(c *ACMEConfig) {
			c.CA, c.TestCA, c.RootsPEM = srv.URL+"/dir", srv.URL+"/dir", roots
		}},
		"fail no domains":    {edit: func(c *ACMEConfig) { c.Domains = nil }, wantErr: ErrInvalidConfig},
		"fail bad domain":    {edit: func(c *ACMEConfig) { c.Domains = []string{"a b"} }, wantErr: ErrInvalidConfig},
		"fail terms":         {edit: func(c *ACMEConfig) { c.AgreeTerms = false }, wantErr: ErrInvalidConfig},
		"fail http CA":       {edit: func(c *ACMEConfig) { c.CA = "http://ca.example/dir" }, wantErr: ErrInvalidConfig}, // the account key and CSR would travel in clear
		"fail bad test CA":   {edit: func(c *ACMEConfig) { c.TestCA = "::" }, wantErr: ErrInvalidConfig},
		"fail roots":         {edit: func(c *ACMEConfig) { c.RootsPEM = []byte("junk") }, wantErr: ErrInvalidConfig},
		"fail port":          {edit: func(c *ACMEConfig) { c.AltHTTPPort = 70000 }, wantErr: ErrInvalidConfig},
		"fail no challenges": {edit: func(c *ACMEConfig) { c.DisableHTTPChallenge, c.DisableTLSALPNChallenge = true, true }, wantErr: ErrInvalidConfig},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := valid()
			tc.edit(&c)
			require.ErrorIs(t, c.Validate(), tc.wantErr)
		})
	}
}

func TestACMERejectsBadInput(t *testing.T) {
	ctx := context.Background()
	_, err := ACME(ctx, ACMEConfig{}, nil, nil)
	require.ErrorIs(t, err, ErrInvalidConfig)
	_, err = ACME(ctx, ACMEConfig{Domains: []string{"vault.example.com"}, AgreeTerms: true}, nil, nil)
	require.ErrorIs(t, err, ErrInvalidConfig)
}
