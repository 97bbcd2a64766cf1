package handlers

import (
	"context"
	"time"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
)

// AgentStore is the storage of agents.
type AgentStore interface {
	CreateAgent(ctx context.Context, a store.Agent, ev *auditchain.Event) (store.Agent, error)
	GetAgent(ctx context.Context, orgID, id string) (store.Agent, error)
	ListAgents(ctx context.Context, orgID, after string, limit int) ([]store.Agent, error)
	AgentByKey(ctx context.Context, id string, hash []byte) (store.Agent, error)
	UpdateAgent(ctx context.Context, orgID, id string, apply func(*store.Agent) error, ev *auditchain.Event) (store.Agent, error)
	RotateAgentKey(ctx context.Context, orgID, id string, hash []byte, lastFour string, expiresAt *time.Time, ev *auditchain.Event) (store.Agent, error)
	DeactivateAgent(ctx context.Context, orgID, id string, ev *auditchain.Event) (store.Agent, []store.PolicyChange, error)
	AgentPolicies(ctx context.Context, orgID, agentID string) ([]policy.Policy, error)
}

// PolicyStore is the storage of policies.
type PolicyStore interface {
	CreatePolicy(ctx context.Context, p store.Policy, ev *auditchain.Event) (store.Policy, store.PolicyChange, error)
	UpdatePolicy(ctx context.Context, p store.Policy, ev *auditchain.Event) (store.Policy, store.PolicyChange, error)
	DeletePolicy(ctx context.Context, orgID, vaultID, id string, ev *auditchain.Event) (store.PolicyChange, error)
	ListPolicies(ctx context.Context, orgID, vaultID, after string, limit int) ([]store.Policy, error)
	PrincipalPolicies(ctx context.Context, orgID, vaultID, principalType, principalID string) ([]policy.Policy, error)
	ListVaultsFor(ctx context.Context, orgID, principalType, principalID, after string, limit int) ([]store.Vault, error)
	PolicySet(ctx context.Context, orgID, vaultID string) (version uint64, set, mac []byte, err error)
	SetPolicySetMAC(ctx context.Context, orgID, vaultID string, version uint64, mac []byte) (bool, error)
}
