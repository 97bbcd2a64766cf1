package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
)

type policyTimeWindow struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Days  []int  `json:"days"`
}

type policyConditions struct {
	IPCIDRs       []string          `json:"ip_cidrs"`
	TimeWindow    *policyTimeWindow `json:"time_window"`
	EnvironmentIn []string          `json:"environment_in"`
}

type policyRequest struct {
	SecretPathPattern   *string           `json:"secret_path_pattern"`
	PrincipalType       *string           `json:"principal_type"`
	PrincipalID         *string           `json:"principal_id"`
	Permissions         []string          `json:"permissions"`
	Conditions          *policyConditions `json:"conditions"`
	Effect              *string           `json:"effect"`
	Priority            *int64            `json:"priority"`
	AttributeConditions json.RawMessage   `json:"attribute_conditions"`
	TxConditions        json.RawMessage   `json:"tx_conditions"`
	ConsensusTrigger    json.RawMessage   `json:"consensus_trigger"`
	ExpiresAt           *time.Time        `json:"expires_at"`
}

type policyResponse struct {
	ID                  string           `json:"id"`
	VaultID             string           `json:"vault_id"`
	SecretPathPattern   string           `json:"secret_path_pattern"`
	PrincipalType       string           `json:"principal_type"`
	PrincipalID         string           `json:"principal_id"`
	Permissions         []string         `json:"permissions"`
	Conditions          policyConditions `json:"conditions"`
	Effect              string           `json:"effect"`
	Priority            int              `json:"priority"`
	AttributeConditions json.RawMessage  `json:"attribute_conditions"`
	TxConditions        json.RawMessage  `json:"tx_conditions"`
	ConsensusTrigger    json.RawMessage  `json:"consensus_trigger"`
	ExpiresAt           *string          `json:"expires_at"`
	CreatedAt           string           `json:"created_at"`
	UpdatedAt           string           `json:"updated_at"`
}

// TxConditionFields are the keys tx_conditions may hold, with their types.
var TxConditionFields = map[string]fieldKind{
	"function_name_in": kindStrings, "function_selector_in": kindStrings, "erc20_amount_above": kindNumberOrString,
	"value_above": kindNumberOrString, "to_address_in": kindStrings, "chain_in": kindStrings, "intent_type_in": kindStrings,
	"decode_failed": kindBool, "program_id_in": kindStrings,
}

func rawOrNull(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

func toPolicy(p store.Policy) policyResponse {
	r := p.Rule
	c := policyConditions{IPCIDRs: append([]string{}, r.Conditions.IPCIDRs...),
		EnvironmentIn: append([]string{}, r.Conditions.EnvironmentIn...)}
	if w := r.Conditions.TimeWindow; w != nil {
		c.TimeWindow = &policyTimeWindow{Start: w.Start, End: w.End, Days: []int{}}
		for _, d := range w.Days {
			c.TimeWindow.Days = append(c.TimeWindow.Days, int(d))
		}
	}
	out := policyResponse{ID: r.ID, VaultID: p.VaultID, SecretPathPattern: r.Pattern, PrincipalType: r.PrincipalType,
		PrincipalID: r.PrincipalID, Permissions: []string{}, Conditions: c, Effect: string(r.Effect), Priority: r.Priority,
		AttributeConditions: rawOrNull(p.AttributeConditions), TxConditions: rawOrNull(p.TxConditions),
		ConsensusTrigger: rawOrNull(p.ConsensusTrigger), ExpiresAt: timePtr(r.ExpiresAt),
		CreatedAt: rfc3339(p.CreatedAt), UpdatedAt: rfc3339(p.UpdatedAt)}
	for _, q := range r.Permissions {
		out.Permissions = append(out.Permissions, string(q))
	}
	return out
}

// objectField checks an optional JSON object field (null or absent: none).
func objectField(name string, raw json.RawMessage, keys map[string]fieldKind) ([]byte, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, badField(name, "must be a JSON object or null")
	}
	for k, v := range m {
		if keys == nil {
			continue
		}
		kind, ok := keys[k]
		if !ok {
			return nil, badField(name+"."+k, "is unknown")
		}
		if !kindMatches(kind, v) {
			return nil, badField(name+"."+k, "has the wrong JSON type")
		}
	}
	return raw, nil
}

// rule validates the body into a policy with id.
func (in *policyRequest) rule(id string) (store.Policy, error) {
	switch {
	case in.SecretPathPattern == nil || in.PrincipalType == nil || in.PrincipalID == nil || in.Permissions == nil:
		return store.Policy{}, problem.BadRequest(problem.TypeInvalidRequest,
			"secret_path_pattern, principal_type, principal_id and permissions are required")
	case !norm.NFC.IsNormalString(*in.SecretPathPattern):
		return store.Policy{}, badField("secret_path_pattern", "must be in Unicode NFC form")
	case in.Priority != nil && (*in.Priority < math.MinInt32 || *in.Priority > math.MaxInt32):
		return store.Policy{}, badField("priority", "must be a 32-bit integer")
	case in.ExpiresAt != nil && !in.ExpiresAt.After(time.Now()):
		return store.Policy{}, badField("expires_at", "must be in the future")
	}
	pid, err := uuid.Parse(*in.PrincipalID)
	if err != nil || len(*in.PrincipalID) != 36 {
		return store.Policy{}, badField("principal_id", "must be a UUID")
	}
	r := policy.Policy{ID: id, Pattern: *in.SecretPathPattern, PrincipalType: *in.PrincipalType, PrincipalID: pid.String(),
		Effect: policy.EffectAllow, ExpiresAt: in.ExpiresAt}
	for _, q := range in.Permissions {
		r.Permissions = append(r.Permissions, policy.Permission(q))
	}
	if in.Effect != nil {
		r.Effect = policy.Effect(*in.Effect)
	}
	if in.Priority != nil {
		r.Priority = int(*in.Priority)
	}
	if c := in.Conditions; c != nil {
		r.Conditions = policy.Conditions{IPCIDRs: c.IPCIDRs, EnvironmentIn: c.EnvironmentIn}
		if w := c.TimeWindow; w != nil {
			r.Conditions.TimeWindow = &policy.TimeWindow{Start: w.Start, End: w.End}
			for _, d := range w.Days {
				if d < 0 || d > 6 {
					return store.Policy{}, badField("conditions.time_window.days", "must hold weekdays 0 (Sunday) to 6 (Saturday)")
				}
				r.Conditions.TimeWindow.Days = append(r.Conditions.TimeWindow.Days, time.Weekday(d))
			}
		}
	}
	if err := r.Prepare(); err != nil {
		// The policy package names the field and never echoes a value.
		return store.Policy{}, problem.BadRequest(problem.TypeInvalidRequest, err.Error())
	}
	p := store.Policy{Rule: r}
	if p.AttributeConditions, err = objectField("attribute_conditions", in.AttributeConditions, nil); err != nil {
		return store.Policy{}, err
	}
	if p.TxConditions, err = objectField("tx_conditions", in.TxConditions, TxConditionFields); err != nil {
		return store.Policy{}, err
	}
	if len(p.TxConditions) > 0 && string(p.TxConditions) != "{}" {
		// The signer reads them with the same parser: refuse now what it
		// would refuse at signing time.
		if _, err := policy.ParseTxConditions(p.TxConditions); err != nil {
			return store.Policy{}, problem.BadRequest(problem.TypeInvalidRequest, "invalid tx_conditions: "+err.Error())
		}
	}
	if p.ConsensusTrigger, err = objectField("consensus_trigger", in.ConsensusTrigger, nil); err != nil {
		return store.Policy{}, err
	}
	return p, nil
}

// policyAdmin refuses members (and agents, though routes keep them out):
// only owners and admins manage policies.
func policyAdmin(r *http.Request) error {
	if !policy.Role(principal(r).Role).BypassesPolicies() {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners and admins may manage policies")
	}
	return nil
}

func policyWriteError(err error) error {
	switch {
	case errors.Is(err, store.ErrUnknownPrincipal):
		return badField("principal_id", "names no member (principal_type user) or active agent (agent) of the organization")
	case errors.Is(err, store.ErrLimit):
		return problem.BadRequest(problem.TypeInvalidRequest, "the vault already has 1000 policies, the maximum")
	case errors.Is(err, store.ErrNotFound):
		return problem.NotFound("vault or policy")
	}
	return err
}

// CreatePolicy answers POST /v1/vaults/{vault_id}/policies.
func (h *Handlers) CreatePolicy(w http.ResponseWriter, r *http.Request) error {
	return h.writePolicy(w, r, false)
}

// UpdatePolicy answers PUT /v1/vaults/{vault_id}/policies/{policy_id}: the
// body replaces every field.
func (h *Handlers) UpdatePolicy(w http.ResponseWriter, r *http.Request) error {
	return h.writePolicy(w, r, true)
}

func (h *Handlers) writePolicy(w http.ResponseWriter, r *http.Request, update bool) error {
	vaultID, err := pathID(r, "vault_id", "vault")
	if err != nil {
		return err
	}
	id := newID()
	if update {
		if id, err = pathID(r, "policy_id", "policy"); err != nil {
			return err
		}
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("vault/" + vaultID + "/policy/" + id)
	if err := policyAdmin(r); err != nil {
		return err
	}
	var in policyRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, err := in.rule(id)
	if err != nil {
		return err
	}
	p.OrgID, p.VaultID = principal(r).OrgID, vaultID
	status := http.StatusCreated
	write := h.Policies.CreatePolicy
	if update {
		status, write = http.StatusOK, h.Policies.UpdatePolicy
	}
	out, ch, err := write(r.Context(), p, entry.Prepare(status))
	if err != nil {
		return policyWriteError(err)
	}
	h.policiesChanged(r, ch)
	return writeJSON(w, status, toPolicy(out))
}

// ListPolicies answers GET /v1/vaults/{vault_id}/policies.
func (h *Handlers) ListPolicies(w http.ResponseWriter, r *http.Request) error {
	vaultID, err := pathID(r, "vault_id", "vault")
	if err != nil {
		return err
	}
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	if err := cursorID(cursor); err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("vault/" + vaultID + "/policies")
	if err := policyAdmin(r); err != nil {
		return err
	}
	orgID := principal(r).OrgID
	if _, err := h.Vaults.GetVault(r.Context(), orgID, vaultID); errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("vault")
	} else if err != nil {
		return err
	}
	ps, err := h.Policies.ListPolicies(r.Context(), orgID, vaultID, cursor, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(ps, limit, toPolicy, func(p store.Policy) string { return p.Rule.ID }))
}

// DeletePolicy answers DELETE /v1/vaults/{vault_id}/policies/{policy_id}.
func (h *Handlers) DeletePolicy(w http.ResponseWriter, r *http.Request) error {
	vaultID, err := pathID(r, "vault_id", "vault")
	if err != nil {
		return err
	}
	id, err := pathID(r, "policy_id", "policy")
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("vault/" + vaultID + "/policy/" + id)
	if err := policyAdmin(r); err != nil {
		return err
	}
	ch, err := h.Policies.DeletePolicy(r.Context(), principal(r).OrgID, vaultID, id, entry.Prepare(http.StatusNoContent))
	if err != nil {
		return policyWriteError(err)
	}
	h.policiesChanged(r, ch)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// policiesChanged applies the agents' revocations on this replica at once
// and has the enclave seal the vault's new policy set with the changer's
// token, storing the MAC. The change is committed already: when sealing
// fails the stored set stays without a MAC, so the enclave refuses members
// and agents on the vault (fail closed) until the next change seals it.
func (h *Handlers) policiesChanged(r *http.Request, ch store.PolicyChange) {
	for _, a := range ch.Revoked {
		h.agentRevoked(a)
	}
	h.sealPolicySet(r, ch)
	// The agents' tx_conditions rules may have changed with the policies.
	for _, a := range ch.Revoked {
		if a.Status == store.AgentActive {
			h.resealAfterChange(r, a.OrgID, a.ID)
		}
	}
}

// sealPolicySet has the enclave MAC a changed policy set for the caller
// and stores the MAC. The enclave seals only for owners and admins; a
// member's change (deleting an agent) leaves the set unsealed, so members
// and agents are refused on that vault until an owner or admin changes a
// policy of it (fail closed).
func (h *Handlers) sealPolicySet(r *http.Request, ch store.PolicyChange) {
	c, err := h.caller(r.Context())
	if err != nil {
		return
	}
	h.sealPolicySetFor(r.Context(), principal(r).OrgID, c.Token, ch)
}

// sealPolicySetFor has the enclave MAC a changed policy set of orgID for
// the changer whose access token is token, and stores the MAC (a refusal
// leaves the set unsealed: fail closed, as above).
func (h *Handlers) sealPolicySetFor(ctx context.Context, orgID, token string, ch store.PolicyChange) {
	mac, err := h.Enclave.SealPolicySet(ctx, wire.SealPolicySetRequest{OrgID: orgID, VaultID: ch.VaultID,
		Version: ch.Version, Set: ch.Set, ChangerToken: token})
	if err != nil {
		return
	}
	_, _ = h.Policies.SetPolicySetMAC(ctx, orgID, ch.VaultID, ch.Version, mac)
}
