package proxy

import (
	"context"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/proxy/handlers"
)

// EnclaveAdapter fits the enclave client to the interfaces of the handlers,
// the token minter and the audit sealer.
type EnclaveAdapter struct{ *client.Client }

// State reports the channel's trust state as the handlers show it.
func (e EnclaveAdapter) State() handlers.EnclaveState {
	s := e.Client.State()
	return handlers.EnclaveState{Attested: s.Attested, Reason: s.Reason, Since: s.Since, Mode: s.Mode, Simulated: s.Simulated}
}

// SignJWT signs a token's claims with the enclave's token key.
func (e EnclaveAdapter) SignJWT(ctx context.Context, claims []byte) (string, error) {
	tok, _, err := e.Client.SignJWT(ctx, claims)
	return tok, err
}
