package intents

import (
	"context"
	"errors"
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// maxKeyVersionTries bounds the retries of a key version another request
// (or an earlier failed attempt) already made in the HSM.
const maxKeyVersionTries = 3

// MakeSigningKey has the enclave make (or, with private, import) agent a's
// next key version for chain, for the caller whose access token is token,
// and records it; rotate retires the active version. private is wiped.
func (s *Service) MakeSigningKey(ctx context.Context, token string, a store.Agent, chain string, private []byte,
	rotate bool) (store.SigningKey, error) {
	v, err := s.keys.NextSigningKeyVersion(ctx, a.OrgID, a.ID, chain)
	if err != nil {
		clear(private)
		return store.SigningKey{}, err
	}
	var resp wire.SigningKeyResponse
	for try := 0; ; try++ {
		resp, err = s.enclave.SigningKey(ctx, wire.SigningKeyRequest{Token: token, OrgID: a.OrgID, AgentID: a.ID,
			Chain: chain, Version: uint32(v), Private: private})
		if errors.Is(err, wire.ErrConflict) && try < maxKeyVersionTries {
			v++ // a version made in the HSM but never recorded
			continue
		}
		break
	}
	clear(private)
	switch {
	case errors.Is(err, wire.ErrBadRequest) && private != nil:
		return store.SigningKey{}, problem.BadRequest(problem.TypeInvalidRequest, "the private key is not valid for "+chain)
	case err != nil:
		return store.SigningKey{}, err
	}
	addr, err := deriveAddress(chain, resp.PublicKey)
	if err != nil {
		return store.SigningKey{}, err
	}
	entry := auditlog.FromContext(ctx)
	entry.SetResource("agent/" + a.ID + "/signing-keys/" + chain)
	status := http.StatusCreated
	if rotate || private != nil {
		status = http.StatusOK
	}
	return s.keys.AddSigningKey(ctx, store.SigningKey{OrgID: a.OrgID, AgentID: a.ID, Chain: chain, Version: v,
		Curve: resp.Curve, PublicKey: resp.PublicKey, Address: addr, Imported: private != nil}, rotate, entry.Prepare(status))
}
