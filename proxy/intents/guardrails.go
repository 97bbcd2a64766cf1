package intents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
)

// maxSealTries bounds the retries when concurrent changes race to stage
// the next guardrail-set version.
const maxSealTries = 3

// SealAgentGuardrails has the enclave seal the agent's current guardrail
// fields and tx_conditions rules as its next guardrail-set version, for the
// human whose access token is token. Until it succeeds the agent cannot
// sign (its MAC was cleared with the change): callers treat a failure as
// non-fatal, the next change seals again.
func (s *Service) SealAgentGuardrails(ctx context.Context, orgID, agentID, token string) error {
	var err error
	for range maxSealTries {
		if err = s.sealGuardrailsOnce(ctx, orgID, agentID, token); !errors.Is(err, store.ErrConflict) && !errors.Is(err, wire.ErrConflict) {
			return err
		}
	}
	return err
}

func (s *Service) sealGuardrailsOnce(ctx context.Context, orgID, agentID, token string) error {
	src, err := s.keys.AgentGuardrailSource(ctx, orgID, agentID)
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
	if err := s.keys.StageGuardrailSet(ctx, orgID, agentID, version, set); err != nil {
		return err
	}
	mac, err := s.enclave.SealGuardrails(ctx, wire.SealGuardrailsRequest{OrgID: orgID, AgentID: agentID,
		Version: uint64(version), Set: set, ChangerToken: token})
	if err != nil {
		return err
	}
	return s.keys.SetGuardrailMAC(ctx, orgID, agentID, version, mac)
}

// signRules converts stored tx_conditions rules for a guardrail set.
func signRules(rows []store.TxRuleRow) []wire.SignRule {
	out := make([]wire.SignRule, 0, len(rows))
	for _, r := range rows {
		out = append(out, wire.SignRule{Effect: r.Effect, Priority: r.Priority, Conditions: r.Conditions, ExpiresAt: r.ExpiresAt})
	}
	return out
}
