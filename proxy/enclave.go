package proxy

import (
	"context"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
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

// SignAuditHead signs an organization's audit chain head.
func (e EnclaveAdapter) SignAuditHead(ctx context.Context, h store.ChainHead) ([]byte, string, error) {
	req := wire.SignAuditHeadRequest{OrgID: h.OrgID, Seq: uint64(h.Seq), EventID: h.EventID}
	copy(req.Hash[:], h.Hash)
	resp, err := e.Client.SignAuditHead(ctx, req)
	return resp.Signature, resp.KID, err
}
