package ops

import (
	"context"

	"github.com/opencustody/ocv/keyvault"
)

// SignTokenWithStore signs claims (a JSON object) with the newest
// token-signing key in ks, exactly as the enclave signs the tokens it
// mints. No wire operation reaches it: it is for tests and tools that hold
// the key store itself (and could sign anything with it anyway).
func SignTokenWithStore(ctx context.Context, ks keyvault.KeyStore, claims []byte) (string, error) {
	k, err := loadJWTKey(ctx, ks)
	if err != nil {
		return "", err
	}
	return k.token(ctx, claims)
}
