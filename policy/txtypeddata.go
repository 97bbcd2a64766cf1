package policy

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
)

// EIP712DomainRule is one eip712_domain_allowlist entry. Written as a JSON
// string it is Match: a verifying contract address or a domain name. Written
// as an object it holds any of name, version, chain_id and
// verifying_contract, and every field present must equal the request's
// domain. Text compares case-insensitively; chain ids compare as numbers
// (decimal or 0x-hex).
type EIP712DomainRule struct {
	Match             string // the string form; when set the other fields are empty
	Name              string
	Version           string
	ChainID           string
	VerifyingContract string
}

// domainObject is the object form of an EIP712DomainRule.
type domainObject struct {
	Name              *string          `json:"name,omitempty"`
	Version           *string          `json:"version,omitempty"`
	ChainID           *json.RawMessage `json:"chain_id,omitempty"`
	VerifyingContract *string          `json:"verifying_contract,omitempty"`
}

// UnmarshalJSON reads a string or an object with at least one known,
// non-empty field; other keys of the object are refused, since a misspelt
// key would otherwise widen the entry to every domain.
func (r *EIP712DomainRule) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return errors.New("domain entry must not be empty")
		}
		*r = EIP712DomainRule{Match: s}
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var o domainObject
	if err := dec.Decode(&o); err != nil || dec.More() {
		return errors.New("domain entry must be a string or an object of name, version, chain_id, verifying_contract")
	}
	var out EIP712DomainRule
	for _, f := range []struct {
		src *string
		dst *string
	}{{o.Name, &out.Name}, {o.Version, &out.Version}, {o.VerifyingContract, &out.VerifyingContract}} {
		if f.src != nil {
			if *f.src == "" {
				return errors.New("domain entry fields must not be empty")
			}
			*f.dst = *f.src
		}
	}
	if o.ChainID != nil {
		text, null, err := numberText(*o.ChainID)
		if err == nil && !null {
			_, ok := chainIDValue(text)
			if !ok {
				err = errors.New("bad chain id")
			}
		}
		if err != nil || null {
			return errors.New("domain entry chain_id must be an integer or a decimal or 0x-hex string")
		}
		out.ChainID = text
	}
	if out == (EIP712DomainRule{}) {
		return errors.New("domain entry object must hold at least one field")
	}
	*r = out
	return nil
}

// MarshalJSON writes the string form for Match, else the object form.
func (r EIP712DomainRule) MarshalJSON() ([]byte, error) {
	if r.Match != "" {
		return json.Marshal(r.Match)
	}
	var o domainObject
	if r.Name != "" {
		o.Name = &r.Name
	}
	if r.Version != "" {
		o.Version = &r.Version
	}
	if r.VerifyingContract != "" {
		o.VerifyingContract = &r.VerifyingContract
	}
	if r.ChainID != "" {
		id, err := json.Marshal(r.ChainID)
		if err != nil {
			return nil, err
		}
		raw := json.RawMessage(id)
		o.ChainID = &raw
	}
	return json.Marshal(o)
}

// matches reports whether r admits the domain d. An empty rule admits
// nothing, so a zero entry can never open every domain.
func (r *EIP712DomainRule) matches(d *TypedDataFacts) bool {
	if r.Match != "" {
		return textEqual(r.Match, d.VerifyingContract) || textEqual(r.Match, d.DomainName)
	}
	if *r == (EIP712DomainRule{}) {
		return false
	}
	return (r.Name == "" || textEqual(r.Name, d.DomainName)) &&
		(r.Version == "" || textEqual(r.Version, d.DomainVersion)) &&
		(r.VerifyingContract == "" || textEqual(r.VerifyingContract, d.VerifyingContract)) &&
		(r.ChainID == "" || chainIDEqual(r.ChainID, d.DomainChainID))
}

// textEqual compares case-insensitively; an empty side never matches.
func textEqual(a, b string) bool {
	return a != "" && b != "" && strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

func chainIDEqual(a, b string) bool {
	x, okA := chainIDValue(a)
	y, okB := chainIDValue(b)
	return okA && okB && x.Cmp(y) == 0
}

// chainIDValue parses a decimal or 0x-hex chain id.
func chainIDValue(s string) (*big.Int, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return nil, false
	}
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		if h == "" || strings.Trim(h, "0123456789abcdef") != "" {
			return nil, false
		}
		return new(big.Int).SetString(h, 16)
	}
	if !allDigits(s) {
		return nil, false
	}
	return new(big.Int).SetString(s, 10)
}
