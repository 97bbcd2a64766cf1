package handlers

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// signIntentRequest is the body of POST /v1/agents/{id}/sign.
type signIntentRequest struct {
	IntentType     string          `json:"intent_type"`
	Chain          json.RawMessage `json:"chain"`
	ChainID        json.RawMessage `json:"chain_id"`
	Message        *string         `json:"message"`
	TypedData      json.RawMessage `json:"typed_data"`
	Hash           *string         `json:"hash"`
	Transaction    json.RawMessage `json:"transaction"`
	SigningKeyPath *string         `json:"signing_key_path"`
}

// SignIntent answers POST /v1/agents/{id}/sign (agents with the intents
// API): personal_sign (EIP-191), typed_data (EIP-712), transaction (EIP-2718
// types 0 to 4, signed only) or eip712_digest (alias digest; needs
// raw_signing_enabled). The enclave computes what it signs from the
// structured request and weighs the agent's guardrails first.
func (h *Handlers) SignIntent(w http.ResponseWriter, r *http.Request) error {
	party, err := h.signingParty(r)
	if err != nil {
		return err
	}
	a, key := party.Agent, party.Key
	var in signIntentRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := checkSigningKeyPath(in.SigningKeyPath, a.ID); err != nil {
		return err
	}
	kind := in.IntentType
	if kind == "digest" {
		kind = wire.IntentDigest
	}
	if kind == wire.IntentTransaction {
		if len(in.Transaction) == 0 {
			return problem.BadRequest(problem.TypeInvalidRequest, "transaction is required for intent_type transaction")
		}
		tx, err := parseAPITx(in.Transaction)
		if err != nil {
			return err
		}
		if tx.ChainID == nil {
			tx.ChainID = firstRaw(in.ChainID, in.Chain)
		}
		res, err := h.signTransaction(r, party, tx, txSignOnly)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, res.signView())
	}
	chain, err := h.signChain(r, firstRaw(in.ChainID, in.Chain))
	if err != nil {
		return err
	}
	var payload []byte
	switch kind {
	case wire.IntentPersonalSign:
		if in.Message == nil {
			return problem.BadRequest(problem.TypeInvalidRequest, "message is required for personal_sign")
		}
		payload = evm.DecodeMessage(*in.Message)
	case wire.IntentTypedData:
		if len(in.TypedData) == 0 {
			return problem.BadRequest(problem.TypeInvalidRequest, "typed_data is required for typed_data")
		}
		payload = in.TypedData
	case wire.IntentDigest:
		if in.Hash == nil {
			return problem.BadRequest(problem.TypeInvalidRequest, "hash is required for eip712_digest")
		}
		b, err := hexutil.Decode(*in.Hash)
		if err != nil || len(b) != 32 {
			return problem.BadRequest(problem.TypeInvalidRequest, "hash must be 32 bytes of 0x-prefixed hex")
		}
		payload = b
	default:
		return problem.BadRequest(problem.TypeInvalidRequest,
			"intent_type must be personal_sign, typed_data, transaction, eip712_digest or digest")
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + a.ID + "/signing-keys/ethereum")
	if kind == wire.IntentDigest {
		entry.Event.Action = "signing_key.raw_digest_sign"
	}
	resp, err := h.enclaveSign(r, signRequest{party: party, chain: chain, kind: kind, payload: payload})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, signatureView(kind, chain, key, resp))
}

// signatureView is the answer to a message, typed-data or digest intent.
func signatureView(kind string, chain store.Chain, key store.SigningKey, resp wire.SignIntentResponse) map[string]any {
	sig := resp.Signature
	out := map[string]any{
		"intent_type": kind, "chain": chain.ID, "chain_id": chain.ChainID, "address": key.Address,
		"key_version": key.Version, "hash": hexutil.Encode(resp.Digest),
	}
	if len(sig) == 65 {
		v := int(sig[64]) + 27
		full := append(append([]byte{}, sig[:64]...), byte(v))
		out["signature"] = hexutil.Encode(full)
		out["r"], out["s"], out["v"] = hexutil.Encode(sig[:32]), hexutil.Encode(sig[32:64]), v
	}
	return out
}

// signChain resolves the chain of a message intent: any enabled EVM chain;
// Ethereum when none is named.
func (h *Handlers) signChain(r *http.Request, ref json.RawMessage) (store.Chain, error) {
	s := "ethereum"
	if len(ref) > 0 && string(ref) != "null" {
		var err error
		if s, err = chainRef(ref); err != nil {
			return store.Chain{}, err
		}
	}
	return h.evmChain(r, s)
}

// evmChain resolves an enabled EVM chain.
func (h *Handlers) evmChain(r *http.Request, ref string) (store.Chain, error) {
	c, err := h.cachedChain(r.Context(), ref)
	if errors.Is(err, store.ErrNotFound) {
		return store.Chain{}, problem.BadRequest(problem.TypeUnsupportedChain, "unknown chain; see GET /v1/chains")
	}
	if err != nil {
		return store.Chain{}, err
	}
	switch {
	case !c.IsEnabled:
		return store.Chain{}, problem.BadRequest(problem.TypeUnsupportedChain, "chain "+c.ID+" is disabled")
	case c.Family != "evm":
		return store.Chain{}, problem.BadRequest(problem.TypeUnsupportedChain,
			"signing on "+c.ID+" is not supported yet; keys and addresses are")
	}
	return c, nil
}

// chainRef reads a chain selector: a JSON integer or string.
func chainRef(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s, nil
	}
	var n json.Number
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&n) == nil {
		if _, err := n.Int64(); err == nil {
			return n.String(), nil
		}
	}
	return "", problem.BadRequest(problem.TypeInvalidRequest, "chain_id must be an integer or a chain name")
}

func firstRaw(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 && string(a) != "null" {
		return a
	}
	return b
}

// evmKey is the agent's active ethereum key, which signs on every EVM chain.
func (h *Handlers) evmKey(r *http.Request, a store.Agent) (store.SigningKey, error) {
	k, err := h.Keys.ActiveSigningKey(r.Context(), a.OrgID, a.ID, "ethereum")
	if errors.Is(err, store.ErrNotFound) {
		return store.SigningKey{}, errNoEthereumKey
	}
	return k, err
}

// checkSigningKeyPath validates the optional signing_key_path: one of the
// prefixes keys/, wallets/, agents/{id}/keys/, agents/{id}/chains/, and a
// UUID anywhere in it must be the calling agent's id.
func checkSigningKeyPath(p *string, agentID string) error {
	if p == nil {
		return nil
	}
	path := *p
	bad := problem.BadRequest(problem.TypeInvalidRequest,
		"signing_key_path must start with keys/, wallets/, agents/{id}/keys/ or agents/{id}/chains/")
	if len(path) > 512 || strings.ContainsAny(path, "\\\x00") || strings.Contains(path, "..") {
		return bad
	}
	segs := strings.Split(path, "/")
	ok := false
	switch {
	case len(segs) >= 2 && (segs[0] == "keys" || segs[0] == "wallets") && segs[1] != "":
		ok = true
	case len(segs) >= 4 && segs[0] == "agents" && (segs[2] == "keys" || segs[2] == "chains") && segs[3] != "":
		ok = true
	}
	if !ok {
		return bad
	}
	for _, s := range segs {
		if looksLikeUUID(s) && !strings.EqualFold(s, agentID) {
			return problem.New(http.StatusForbidden, problem.TypeForbidden, "signing_key_path names another agent")
		}
	}
	return nil
}

func looksLikeUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	return err == nil && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
}
