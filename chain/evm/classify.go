package evm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// riskyTypeNames are struct types whose signature moves tokens or grants
// rights off-chain: Seaport orders. Names are compared case-insensitively;
// any type whose name contains "permit" (EIP-2612, DAI, Permit2 and their
// helper types) is treated the same way.
var riskyTypeNames = []string{"OrderComponents", "Order", "BulkOrder"}

// riskyFieldNames are struct fields or message keys that carry an
// allowance or operator right.
var riskyFieldNames = []string{
	"spender", "operator", "allowed", "approved",
	"allowance", "approval", "setApprovalForAll", "approvalForAll",
}

// daiPermitFields identify a DAI-style permit whatever the type is called.
var daiPermitFields = []string{"holder", "spender", "nonce", "expiry", "allowed"}

// ClassifyTypedData reports whether signing td could grant someone the right
// to move the signer's assets: permits (EIP-2612, DAI, Permit2), Seaport
// orders, any type with an allowance or operator field, or a message that
// mentions setApprovalForAll. The check is deliberately broad: a false
// positive costs an approval, a false negative can cost the wallet. reason
// names the first finding.
func ClassifyTypedData(td apitypes.TypedData) (dangerous bool, reason string) {
	names := make([]string, 0, len(td.Types))
	for name := range td.Types {
		if name != "EIP712Domain" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	// The primary type first so that reason names it when it is the culprit.
	names = slices.DeleteFunc(names, func(n string) bool { return n == td.PrimaryType })
	names = append([]string{td.PrimaryType}, names...)

	for _, name := range names {
		if r := riskyTypeName(name); r != "" {
			return true, r
		}
		fields := td.Types[name]
		if isDAIPermit(fields) {
			return true, fmt.Sprintf("type %s is a DAI-style permit", name)
		}
		for _, f := range fields {
			if containsFold(riskyFieldNames, f.Name) {
				return true, fmt.Sprintf("type %s has field %q (allowance or operator rights)", name, f.Name)
			}
		}
	}
	if r := riskyMessage(td.Message, 0); r != "" {
		return true, r
	}
	return false, ""
}

func riskyTypeName(name string) string {
	switch {
	case strings.Contains(strings.ToLower(name), "permit"):
		return fmt.Sprintf("type %s is a token permit", name)
	case containsFold(riskyTypeNames, name):
		return fmt.Sprintf("type %s is a marketplace order", name)
	}
	return ""
}

func isDAIPermit(fields []apitypes.Type) bool {
	for _, want := range daiPermitFields {
		if !slices.ContainsFunc(fields, func(f apitypes.Type) bool { return strings.EqualFold(f.Name, want) }) {
			return false
		}
	}
	return true
}

// maxMessageDepth stops the walk on absurdly nested messages; deeper data is
// reported as dangerous rather than left unchecked.
const maxMessageDepth = 32

// riskyMessage walks message keys and string values for approval wording.
func riskyMessage(v any, depth int) string {
	if depth > maxMessageDepth {
		return "message nesting too deep to inspect"
	}
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if containsFold(riskyFieldNames, k) {
				return fmt.Sprintf("message field %q (allowance or operator rights)", k)
			}
			if r := riskyMessage(t[k], depth+1); r != "" {
				return r
			}
		}
	case []any:
		for _, e := range t {
			if r := riskyMessage(e, depth+1); r != "" {
				return r
			}
		}
	case string:
		if strings.Contains(strings.ToLower(t), "setapprovalforall") {
			return "message mentions setApprovalForAll"
		}
	}
	return ""
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(e string) bool { return strings.EqualFold(e, s) })
}
