package handlers

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
)

// agentView is an agent as the API shows it: the record's fields and the
// guardrail fields, stored ones over the defaults of the booleans never
// set. Never the key.
func agentView(a store.Agent) api.Agent {
	g := map[string]json.RawMessage{}
	for k, v := range policy.GuardrailDefaults {
		g[k], _ = json.Marshal(v)
	}
	var stored map[string]json.RawMessage
	_ = json.Unmarshal(a.Guardrails, &stored)
	for k, v := range stored {
		g[k] = v
	}
	var out api.Agent
	// The guardrail fields fill the view's guardrail fields by name (both
	// are policy.GuardrailFields; a test holds them equal).
	b, _ := json.Marshal(g)
	_ = json.Unmarshal(b, &out)
	out.ID, out.Name, out.Description, out.Status = a.ID, a.Name, a.Description, a.Status
	out.IntentsAPIEnabled, out.Scopes = a.IntentsAPIEnabled, a.Scopes
	if a.Environment != "" {
		env := a.Environment
		out.Environment = &env
	}
	out.APIKeyPrefix, out.APIKeyLastFour, out.APIKeyExpiresAt = AgentKeyPrefix, a.KeyLastFour, timePtr(a.APIKeyExpiresAt)
	out.CreatedBy, out.CreatedAt, out.UpdatedAt = a.CreatedBy, rfc3339(a.CreatedAt), rfc3339(a.UpdatedAt)
	return out
}

// agentCreatedView is the answer that shows an agent's new API key, once:
// the agent, its id again as agent_id, and the key.
func agentCreatedView(a store.Agent, key string) api.AgentCreated {
	return api.AgentCreated{Agent: agentView(a), AgentID: a.ID, APIKey: key}
}

// withUsage adds the read-only counters of the agent's current UTC day:
// transactions signed, native value spent per chain (in ETH units; all
// chains with signing are EVM chains so far) and the deprecated total
// tx_spent_today_eth.
func (h *Handlers) withUsage(ctx context.Context, a store.Agent) (api.Agent, error) {
	v := agentView(a)
	count, spent, err := h.Txs.AgentTxToday(ctx, a.OrgID, a.ID, h.now())
	if err != nil {
		return api.Agent{}, err
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
	overhead := map[string]any{}
	sum := evm.FormatEth(total)
	v.TxCountToday, v.TxSpentTodayByChain, v.TxOverheadTodayByChain = &count, &byChain, &overhead
	v.TxSpentToday, v.TxSpentTodayETH = &sum, &sum
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
