package pkcs11

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

func TestCheckRef(t *testing.T) {
	tests := map[string]struct {
		ref     keyvault.KeyRef
		wantErr error
	}{
		"ok kek":         {ref: keyvault.KeyRef{ID: "kek/0b6e", Version: 1}},
		"fail version 0": {ref: keyvault.KeyRef{ID: "jwt"}, wantErr: ErrInvalidKeyRef},
		"fail empty id":  {ref: keyvault.KeyRef{Version: 1}, wantErr: ErrInvalidKeyRef},
		// A control character would end up in CKA_LABEL and in logs.
		"fail newline":   {ref: keyvault.KeyRef{ID: "a\nb", Version: 1}, wantErr: ErrInvalidKeyRef},
		"fail non-ascii": {ref: keyvault.KeyRef{ID: "clé", Version: 1}, wantErr: ErrInvalidKeyRef},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, checkRef(tc.ref), tc.wantErr)
		})
	}
}

func TestVersionsFromLabels(t *testing.T) {
	labels := []string{
		"ocv:a:v3", "ocv:a:v1", "ocv:a:v3", // a key pair has two objects
		"ocv:a:v01",   // not canonical
		"ocv:a:v1:v2", // belongs to id "a:v1"
		"ocv:a:v0", "ocv:ab:v7", "other", "ocv:a:v4294967296",
	}
	require.Equal(t, []uint32{1, 3}, versionsFromLabels("a", labels))
	require.Equal(t, []uint32{2}, versionsFromLabels("a:v1", labels))
	require.Empty(t, versionsFromLabels("zz", labels))
	require.NotNil(t, versionsFromLabels("zz", labels))
}
