package intents

import (
	"context"
	"errors"
	"fmt"
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
// and records it; rotate retires the active version, and the versions the
// new one replaces are destroyed in the HSM before the database records
// the change (the enclave needs an owner's or admin's token for that). A
// failure leaves the database as it was; a retry makes another version
// and destroys every older one. private is wiped.
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
	if rotate {
		if err := s.DestroyRetiredKeys(ctx, token, a, chain, uint32(v)); err != nil {
			return store.SigningKey{}, err
		}
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

// DestroyRetiredKeys has the enclave destroy agent a's key versions for
// chain in the HSM: every version below below, which must exist, or every
// version when below is 0 (the key is deleted). token must be an owner's or
// admin's of a's organization.
func (s *Service) DestroyRetiredKeys(ctx context.Context, token string, a store.Agent, chain string, below uint32) error {
	_, err := s.enclave.DestroySigningKey(ctx, wire.DestroySigningKeyRequest{Token: token, OrgID: a.OrgID, AgentID: a.ID,
		Chain: chain, Below: below})
	switch {
	case errors.Is(err, wire.ErrForbidden):
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners and admins may retire an agent's signing keys")
	case err != nil:
		return fmt.Errorf("destroying retired signing keys: %w", err)
	}
	return nil
}
