package intents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
)

// evmDecimals is the number of decimals of an EVM chain's native asset.
const evmDecimals = 18

// ErrGuardrailsUnsealed is returned for a sign intent while the agent's
// guardrail set is not sealed (a change whose sealing failed); it answers
// 409 guardrails_unsealed.
var ErrGuardrailsUnsealed = errors.New("the agent's guardrails are not sealed")

// guardrailsOf parses the agent's stored guardrail fields for the day's
// limits. A stored value that no longer parses denies (fail closed).
func guardrailsOf(a store.Agent) (policy.Guardrails, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(guardrailsOrEmptyJSON(a.Guardrails), &fields); err != nil {
		return policy.Guardrails{}, errUnreadableGuardrails
	}
	g, err := policy.ParseGuardrails(fields)
	if err != nil {
		return policy.Guardrails{}, errUnreadableGuardrails
	}
	return g, nil
}

var errUnreadableGuardrails = problem.Guardrail(policy.GuardrailDecode, "the agent's guardrails could not be read")

func guardrailsOrEmptyJSON(b []byte) []byte {
	if len(b) == 0 {
		return []byte("{}")
	}
	return b
}

// signRequest is one sign intent on its way to the enclave.
type signRequest struct {
	party   store.SigningParty
	chain   store.Chain
	kind    string
	payload []byte
	// counters are the day's counters before this request (transactions).
	counters   store.TxCounters
	tokenKnown bool
}

// enclaveSign sends req to the enclave and turns a guardrail refusal into
// its 403 problem.
func (s *Service) enclaveSign(ctx context.Context, token string, req signRequest) (wire.SignIntentResponse, error) {
	if len(req.party.GuardrailMAC) == 0 {
		return wire.SignIntentResponse{}, ErrGuardrailsUnsealed
	}
	sc := wire.SignContext{Chain: req.chain.ID, ChainID: uint64(req.chain.ChainID),
		TokenKnown: req.tokenKnown, Counters: wire.SignCounters{CountToday: req.counters.CountToday,
			CountTodayChain: req.counters.CountTodayChain}}
	if req.counters.SpentTodayChain != nil {
		sc.Counters.SpentTodayChain = req.counters.SpentTodayChain.String()
	}
	if req.counters.FeesTodayChain != nil {
		sc.Counters.FeesTodayChain = req.counters.FeesTodayChain.String()
	}
	scJSON, err := json.Marshal(sc)
	if err != nil {
		return wire.SignIntentResponse{}, fmt.Errorf("encoding sign context: %w", err)
	}
	a, key := req.party.Agent, req.party.Key
	resp, err := s.enclave.SignIntent(ctx, wire.SignIntentRequest{Token: token, OrgID: a.OrgID, AgentID: a.ID,
		Chain: key.Chain, KeyVersion: uint32(key.Version), Kind: req.kind, Payload: req.payload, Context: scJSON,
		GuardrailSet: req.party.GuardrailSet, GuardrailMAC: req.party.GuardrailMAC})
	switch {
	case errors.Is(err, wire.ErrBadRequest):
		return wire.SignIntentResponse{}, problem.BadRequest(problem.TypeInvalidRequest, "the enclave refused the request as malformed: "+enclaveDetail(err))
	case errors.Is(err, wire.ErrForbidden):
		return wire.SignIntentResponse{}, problem.New(http.StatusForbidden, problem.TypeForbidden,
			"the enclave refused to sign: the caller's token or the agent's sealed guardrail set did not verify")
	case errors.Is(err, wire.ErrNotFound):
		// The key version was destroyed in the HSM (a rotation or deletion
		// whose database change did not land): nothing can sign with it.
		return wire.SignIntentResponse{}, problem.New(http.StatusConflict, problem.TypeConflict,
			"the agent's signing key version no longer exists in the HSM; rotate the key")
	case err != nil:
		return wire.SignIntentResponse{}, err
	}
	if resp.Denied != "" {
		return wire.SignIntentResponse{}, problem.Guardrail(resp.Denied, guardrailDetail(resp.Denied, resp.Detail))
	}
	return resp, nil
}

// enclaveDetail is the enclave's reason for a bad request, without the
// wire prefix.
func enclaveDetail(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
}

func guardrailDetail(name, detail string) string {
	if detail == "" {
		return "denied by the agent's " + name + " guardrail"
	}
	return "denied by the agent's " + name + " guardrail: " + detail
}

// reserveDay counts a transaction of value and maximum fee on the agent's
// day counters within its daily limits and fee budget, before it is
// signed. The enclave judges the same limits again on the counters.
func (s *Service) reserveDay(ctx context.Context, a store.Agent, g policy.Guardrails, chain string, value, fee *big.Int,
	now time.Time) (store.TxCounters, error) {
	maxDay, maxDayChain, dailyValue := g.DailyLimits(chain, evmDecimals)
	before, denied, err := s.txs.ReserveTxFee(ctx, a.OrgID, a.ID, chain, now, value, fee,
		store.TxLimits{MaxPerDay: maxDay, MaxPerDayChain: maxDayChain, DailyValue: dailyValue,
			FeeBudget: g.OverheadBudget(chain, evmDecimals)})
	if err != nil {
		return store.TxCounters{}, err
	}
	switch denied {
	case "":
		return before, nil
	case store.DeniedMaxPerDayChain:
		return store.TxCounters{}, problem.Guardrail(policy.GuardrailPerChain, "the per-chain max_per_day of today is reached")
	case store.DeniedFeeBudget:
		return store.TxCounters{}, problem.Guardrail(policy.GuardrailOverheadBudget, "today's fee budget on this chain would be exceeded (UTC day)")
	case store.DeniedMaxPerDay:
		return store.TxCounters{}, problem.Guardrail(policy.GuardrailMaxPerDay, "today's transaction count limit is reached (UTC day)")
	default:
		return store.TxCounters{}, problem.Guardrail(policy.GuardrailDailyLimit, "today's value limit would be exceeded (UTC day)")
	}
}
