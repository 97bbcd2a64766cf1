package proxy

import (
	"context"

	"github.com/opencustody/ocv/proxy/handlers"
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
)

// enclaveAdapter fits the enclave client to the interfaces of the handlers,
// the token minter and the audit sealer.
type enclaveAdapter struct{ *client.Client }

func (e enclaveAdapter) State() handlers.EnclaveState {
	s := e.Client.State()
	return handlers.EnclaveState{Attested: s.Attested, Reason: s.Reason, Since: s.Since, Mode: s.Mode, Simulated: s.Simulated}
}

func (e enclaveAdapter) SignJWT(ctx context.Context, claims []byte) (string, error) {
	tok, _, err := e.Client.SignJWT(ctx, claims)
	return tok, err
}

func (e enclaveAdapter) SignAuditHead(ctx context.Context, h store.ChainHead) ([]byte, string, error) {
	req := wire.SignAuditHeadRequest{OrgID: h.OrgID, Seq: uint64(h.Seq), EventID: h.EventID}
	copy(req.Hash[:], h.Hash)
	resp, err := e.Client.SignAuditHead(ctx, req)
	return resp.Signature, resp.KID, err
}
