package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
)

// maxSealTries bounds the retries when concurrent changes race to stage
// the next guardrail-set version.
const maxSealTries = 3

// errGuardrailsUnsealed answers a sign intent while the agent's guardrail
// set is not sealed (a change whose sealing failed).
var errGuardrailsUnsealed = problem.New(http.StatusConflict, "guardrails_unsealed",
	"the agent's guardrails changed and the enclave has not sealed them; PATCH /v1/agents/{id} (an empty object will do) to seal them again")

// sealAgentGuardrails has the enclave seal the agent's current guardrail
// fields and tx_conditions rules as its next guardrail-set version, for the
// human whose access token is token. Until it succeeds the agent cannot
// sign (its MAC was cleared with the change): callers treat a failure as
// non-fatal, the next change seals again.
func (h *Handlers) sealAgentGuardrails(ctx context.Context, orgID, agentID, token string) error {
	var err error
	for range maxSealTries {
		if err = h.sealGuardrailsOnce(ctx, orgID, agentID, token); !errors.Is(err, store.ErrConflict) && !errors.Is(err, wire.ErrConflict) {
			return err
		}
	}
	return err
}

func (h *Handlers) sealGuardrailsOnce(ctx context.Context, orgID, agentID, token string) error {
	src, err := h.Keys.AgentGuardrailSource(ctx, orgID, agentID)
	if err != nil {
		return err
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(guardrailsOrEmptyJSON(src.Guardrails), &fields); err != nil {
		return fmt.Errorf("reading stored guardrails: %w", err)
	}
	version := src.Version + 1
	gs := wire.GuardrailSet{AgentID: agentID, Version: uint64(version), Guardrails: fields, Rules: signRules(src.Rules)}
	set, err := json.Marshal(gs)
	if err != nil {
		return fmt.Errorf("encoding guardrail set: %w", err)
	}
	if err := h.Keys.StageGuardrailSet(ctx, orgID, agentID, version, set); err != nil {
		return err
	}
	mac, err := h.Enclave.SealGuardrails(ctx, wire.SealGuardrailsRequest{OrgID: orgID, AgentID: agentID,
		Version: uint64(version), Set: set, ChangerToken: token})
	if err != nil {
		return err
	}
	return h.Keys.SetGuardrailMAC(ctx, orgID, agentID, version, mac)
}

// resealAfterChange seals the agent's guardrails after a change made by
// the request's human caller; failures leave the agent unable to sign
// (fail closed) and are not the request's failure.
func (h *Handlers) resealAfterChange(r *http.Request, orgID, agentID string) {
	c, err := h.caller(r.Context())
	if err != nil {
		return
	}
	_ = h.sealAgentGuardrails(context.WithoutCancel(r.Context()), orgID, agentID, c.Token)
}

// signRules converts stored tx_conditions rules for a guardrail set.
func signRules(rows []store.TxRuleRow) []wire.SignRule {
	out := make([]wire.SignRule, 0, len(rows))
	for _, r := range rows {
		out = append(out, wire.SignRule{Effect: r.Effect, Priority: r.Priority, Conditions: r.Conditions, ExpiresAt: r.ExpiresAt})
	}
	return out
}
