package handlers

import (
	"context"
	"encoding/json"
	"math/big"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
)

// agentView is an agent as the API shows it: the record's fields, then the
// guardrail fields (defaults for booleans never set). Never the key.
func agentView(a store.Agent) map[string]any {
	out := map[string]any{}
	for k, v := range policy.GuardrailDefaults {
		out[k] = v
	}
	var g map[string]json.RawMessage
	_ = json.Unmarshal(a.Guardrails, &g)
	for k, v := range g {
		out[k] = v
	}
	var env, scopes any
	if a.Environment != "" {
		env = a.Environment
	}
	if a.Scopes != nil {
		scopes = a.Scopes
	}
	for k, v := range map[string]any{
		"id": a.ID, "name": a.Name, "description": a.Description, "status": a.Status,
		"intents_api_enabled": a.IntentsAPIEnabled, "environment": env, "scopes": scopes,
		"api_key_prefix": AgentKeyPrefix, "api_key_last_four": a.KeyLastFour, "api_key_expires_at": timePtr(a.APIKeyExpiresAt),
		"created_by": a.CreatedBy, "created_at": rfc3339(a.CreatedAt), "updated_at": rfc3339(a.UpdatedAt),
	} {
		out[k] = v
	}
	return out
}

// agentCreatedView is the answer that shows an agent's new API key, once:
// the agent, its id again as agent_id, and the key.
func agentCreatedView(a store.Agent, key string) map[string]any {
	out := agentView(a)
	out["agent_id"], out["api_key"] = a.ID, key
	return out
}

// withUsage adds the read-only counters of the agent's current UTC day:
// transactions signed, native value spent per chain (in ETH units; all
// chains with signing are EVM chains so far) and the deprecated total
// tx_spent_today_eth.
func (h *Handlers) withUsage(ctx context.Context, a store.Agent) (map[string]any, error) {
	v := agentView(a)
	count, spent, err := h.Txs.AgentTxToday(ctx, a.OrgID, a.ID, time.Now())
	if err != nil {
		return nil, err
	}
	byChain := map[string]string{}
	total := new(big.Int)
	for chain, wei := range spent {
		n, ok := new(big.Int).SetString(wei, 10)
		if !ok {
			continue
		}
		byChain[chain] = evm.FormatEth(n)
		total.Add(total, n)
	}
	v["tx_count_today"] = count
	v["tx_spent_today_by_chain"] = byChain
	v["tx_overhead_today_by_chain"] = map[string]any{}
	v["tx_spent_today"] = evm.FormatEth(total)
	v["tx_spent_today_eth"] = evm.FormatEth(total)
	return v, nil
}

// directoryCapabilities are the guardrail flags the directory lists, with
// the capability each names.
var directoryCapabilities = []struct{ field, name string }{
	{"execution_intents_enabled", "execution_intents"}, {"message_signing_enabled", "message_signing"},
	{"cards_enabled", "cards"}, {"delegation_enabled", "delegation"}, {"memory_enabled", "memory"},
}

func toDirectoryEntry(a store.Agent) api.AgentDirectoryEntry {
	caps := []string{}
	if a.IntentsAPIEnabled {
		caps = append(caps, "intents")
	}
	for _, c := range directoryCapabilities {
		if policy.GuardrailBool(a.Guardrails, c.field) {
			caps = append(caps, c.name)
		}
	}
	return api.AgentDirectoryEntry{ID: a.ID, Name: a.Name, Description: a.Description, Capabilities: caps, Status: a.Status}
}
