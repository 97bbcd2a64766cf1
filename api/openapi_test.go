package api

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
)

// implementedRoute is one row of proxy/routes.go as this document describes it.
type implementedRoute struct {
	Method  string // as in routes.go: http.MethodGet → "GET"
	Pattern string // the route pattern, {path...} included
	Access  string // Public, Any, UserOnly, AdminOnly or AgentIntents
}

// implementedRoutes is the route table the document covers. It must equal
// proxy/routes.go (checked by parsing its text: importing proxy would make an
// import cycle once the proxy serves this package's JSON).
var implementedRoutes = []implementedRoute{
	{"GET", "/v1/health", "Public"},
	{"GET", "/v1/health/hsm", "Public"},
	{"GET", "/v1/attestation", "Public"},
	{"GET", "/openapi.json", "Public"},
	{"GET", "/.well-known/jwks.json", "Public"},
	{"POST", "/v1/auth/signup", "Public"},
	{"POST", "/v1/auth/token", "Public"},
	{"DELETE", "/v1/auth/token", "Any"},
	{"POST", "/v1/vaults", "UserOnly"},
	{"GET", "/v1/vaults", "Any"},
	{"GET", "/v1/vaults/{id}", "Any"},
	{"DELETE", "/v1/vaults/{id}", "UserOnly"},
	{"GET", "/v1/vaults/{vault_id}/secrets", "Any"},
	{"PUT", "/v1/vaults/{vault_id}/secrets/{path...}", "Any"},
	{"GET", "/v1/vaults/{vault_id}/secrets/{path...}", "Any"},
	{"DELETE", "/v1/vaults/{vault_id}/secrets/{path...}", "Any"},
	{"GET", "/v1/audit/events", "UserOnly"},
	{"POST", "/v1/auth/api-key-token", "Public"},
	{"POST", "/v1/auth/refresh", "Public"},
	{"POST", "/v1/auth/change-password", "UserOnly"},
	{"POST", "/v1/auth/set-password", "UserOnly"},
	{"POST", "/v1/auth/api-keys", "UserOnly"},
	{"GET", "/v1/auth/api-keys", "UserOnly"},
	{"DELETE", "/v1/auth/api-keys/{key_id}", "UserOnly"},
	{"GET", "/v1/auth/settings", "UserOnly"},
	{"PATCH", "/v1/auth/settings", "UserOnly"},
	{"GET", "/v1/org/members", "UserOnly"},
	{"POST", "/v1/org/invite", "UserOnly"},
	{"POST", "/v1/org/invitations/accept", "Public"},
	{"PATCH", "/v1/org/members/{user_id}", "UserOnly"},
	{"DELETE", "/v1/org/members/{user_id}", "UserOnly"},
	{"GET", "/v1/security/ip-rules", "UserOnly"},
	{"POST", "/v1/security/ip-rules", "UserOnly"},
	{"DELETE", "/v1/security/ip-rules/{rule_id}", "UserOnly"},
	{"GET", "/v1/admin/users", "AdminOnly"},
	{"DELETE", "/v1/admin/users/{user_id}", "AdminOnly"},
	{"GET", "/v1/admin/settings", "AdminOnly"},
	{"GET", "/v1/admin/settings/{key}", "AdminOnly"},
	{"PUT", "/v1/admin/settings/{key}", "AdminOnly"},
	{"GET", "/v1/admin/x402", "AdminOnly"},
	{"PUT", "/v1/admin/x402", "AdminOnly"},
	{"GET", "/v1/admin/orgs/{org_id}/limits", "AdminOnly"},
	{"PUT", "/v1/admin/orgs/{org_id}/tier", "AdminOnly"},
	{"GET", "/v1/admin/chains", "AdminOnly"},
	{"POST", "/v1/admin/chains", "AdminOnly"},
	{"POST", "/v1/admin/tokens", "AdminOnly"},
	{"DELETE", "/v1/admin/tokens/{chain}/{contract_address}", "AdminOnly"},
	{"GET", "/v1/chains", "Any"},
	{"GET", "/v1/chains/{id_or_chain_id}", "Any"},
	{"GET", "/v1/chains/{chain}/tokens", "Public"},
	{"GET", "/v1/tokens", "Public"},
	{"POST", "/v1/auth/agent-token", "Public"},
	{"POST", "/v1/agents", "UserOnly"},
	{"GET", "/v1/agents", "UserOnly"},
	{"GET", "/v1/agents/me", "Any"},
	{"GET", "/v1/agents/org-directory", "Any"},
	{"GET", "/v1/agents/{id}", "UserOnly"},
	{"PATCH", "/v1/agents/{id}", "UserOnly"},
	{"POST", "/v1/agents/{id}/rotate-key", "UserOnly"},
	{"DELETE", "/v1/agents/{id}", "UserOnly"},
	{"POST", "/v1/agents/{id}/signing-keys", "Any"},
	{"GET", "/v1/agents/{id}/signing-keys", "Any"},
	{"GET", "/v1/agents/{id}/signing-keys/{chain}", "Any"},
	{"POST", "/v1/agents/{id}/signing-keys/{chain}/rotate", "UserOnly"},
	{"POST", "/v1/agents/{id}/signing-keys/{chain}/import", "UserOnly"},
	{"DELETE", "/v1/agents/{id}/signing-keys/{chain}", "UserOnly"},
	{"GET", "/v1/agents/{id}/signing-keys/{chain}/balance", "Any"},
	{"POST", "/v1/agents/{id}/sign", "AgentIntents"},
	{"POST", "/v1/agents/{id}/transactions", "AgentIntents"},
	{"POST", "/v1/agents/{id}/transactions/sign", "AgentIntents"},
	{"POST", "/v1/agents/{id}/transactions/simulate", "AgentIntents"},
	{"POST", "/v1/agents/{id}/transactions/simulate-bundle", "AgentIntents"},
	{"GET", "/v1/agents/{id}/transactions", "Any"},
	{"GET", "/v1/agents/{id}/transactions/{tx_id}", "Any"},
	{"POST", "/v1/vaults/{vault_id}/policies", "UserOnly"},
	{"GET", "/v1/vaults/{vault_id}/policies", "UserOnly"},
	{"PUT", "/v1/vaults/{vault_id}/policies/{policy_id}", "UserOnly"},
	{"DELETE", "/v1/vaults/{vault_id}/policies/{policy_id}", "UserOnly"},
	{"POST", "/v1/secrets/{secret_id}/share", "Any"},
	{"GET", "/v1/shares/outbound", "Any"},
	{"GET", "/v1/shares/inbound", "Any"},
	{"POST", "/v1/shares/{id}/accept", "Any"},
	{"POST", "/v1/shares/{id}/decline", "Any"},
	{"GET", "/v1/share/{id}", "Public"},
	{"DELETE", "/v1/share/{id}", "Any"},
	{"POST", "/v1/webhooks", "UserOnly"},
	{"GET", "/v1/webhooks", "UserOnly"},
	{"GET", "/v1/webhooks/{id}", "UserOnly"},
	{"PATCH", "/v1/webhooks/{id}", "UserOnly"},
	{"DELETE", "/v1/webhooks/{id}", "UserOnly"},
	{"GET", "/v1/webhooks/{id}/deliveries", "UserOnly"},
	{"POST", "/v1/webhooks/{id}/deliveries/{delivery_id}/replay", "UserOnly"},
	{"POST", "/v1/webhooks/{id}/deliveries/replay", "UserOnly"},
	{"GET", "/v1/vaults/{id}/env-vars/resolve", "Any"},
	{"GET", "/.well-known/x402", "Public"},
	{"GET", "/v1/billing/usage", "UserOnly"},
	{"GET", "/v1/billing/history", "UserOnly"},
	{"GET", "/v1/billing/subscription", "UserOnly"},
}

// openAPIPath turns a route pattern into its OpenAPI path template: a
// trailing {name...} is documented as {name} (with x-ocv-route on the item).
func openAPIPath(pattern string) string { return strings.ReplaceAll(pattern, "...}", "}") }

func loadDoc(t testing.TB, data []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	require.NoError(t, err)
	return doc
}

func TestDocumentValidates(t *testing.T) {
	js, err := JSON()
	require.NoError(t, err)
	tests := map[string]struct {
		data []byte
	}{
		"yaml as embedded": {data: YAML()},
		"json rendering":   {data: js},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			doc := loadDoc(t, tc.data)
			require.Equal(t, "3.1.0", doc.OpenAPI)
			require.True(t, doc.IsOpenAPI31OrLater())
			require.Equal(t, "0.1.0", doc.Info.Version, "info.version is the document's own version, not /v1")
			require.NoError(t, doc.Validate(context.Background(), openapi3.EnableExamplesValidation()))
		})
	}
}

func TestJSONIsValidAndMatchesYAML(t *testing.T) {
	js, err := JSON()
	require.NoError(t, err)
	require.True(t, json.Valid(js))

	var got map[string]any
	require.NoError(t, json.Unmarshal(js, &got))
	paths, ok := got["paths"].(map[string]any)
	require.True(t, ok)
	for p, item := range paths {
		ops, ok := item.(map[string]any)
		require.True(t, ok, p)
		for m, op := range ops {
			opm, ok := op.(map[string]any)
			if !ok || m == "parameters" {
				continue
			}
			resp, ok := opm["responses"].(map[string]any)
			require.True(t, ok, "%s %s has responses", m, p)
			for code := range resp {
				_, err := strconv.Atoi(code)
				require.NoError(t, err, "status keys are strings of digits")
			}
		}
	}

	// JSON hands out a copy: modifying it does not change the next call.
	js[0] = 'X'
	again, err := JSON()
	require.NoError(t, err)
	require.True(t, json.Valid(again))
}

// parseRoutesFile reads the route table out of proxy/routes.go: every
// composite literal {http.MethodX, "pattern", Access, ...}.
func parseRoutesFile(t *testing.T) []implementedRoute {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../proxy/routes.go", nil, 0)
	require.NoError(t, err)
	var out []implementedRoute
	ast.Inspect(f, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok || len(cl.Elts) < 3 {
			return true
		}
		sel, ok := cl.Elts[0].(*ast.SelectorExpr)
		if !ok || !strings.HasPrefix(sel.Sel.Name, "Method") {
			return true
		}
		lit, ok := cl.Elts[1].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		pattern, err := strconv.Unquote(lit.Value)
		require.NoError(t, err)
		access, ok := cl.Elts[2].(*ast.Ident)
		require.True(t, ok, "access level of %s is an identifier", pattern)
		out = append(out, implementedRoute{
			Method: strings.ToUpper(strings.TrimPrefix(sel.Sel.Name, "Method")), Pattern: pattern, Access: access.Name,
		})
		return false
	})
	return out
}

func routeKey(r implementedRoute) string { return r.Method + " " + r.Pattern }

func TestRoutesMatchProxyRouteTable(t *testing.T) {
	parsed := parseRoutesFile(t)
	require.Len(t, implementedRoutes, 98)
	require.ElementsMatch(t, implementedRoutes, parsed, "proxy/routes.go changed: update openapi.yaml and implementedRoutes")

	doc := loadDoc(t, YAML())
	want := map[string]bool{}
	for _, r := range implementedRoutes {
		want[r.Method+" "+openAPIPath(r.Pattern)] = true
	}
	got := map[string]bool{}
	for p, item := range doc.Paths.Map() {
		for m := range item.Operations() {
			got[m+" "+p] = true
		}
		if strings.Contains(p, "{path}") {
			require.Equal(t, strings.ReplaceAll(p, "{path}", "{path...}"), item.Extensions["x-ocv-route"],
				"%s names its catch-all route", p)
		}
	}
	require.Equal(t, slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got)))
}

func TestOperationsDocumentAccessLevel(t *testing.T) {
	doc := loadDoc(t, YAML())
	require.NotNil(t, doc.Components.SecuritySchemes["bearerAuth"])
	for _, r := range implementedRoutes {
		t.Run(routeKey(r), func(t *testing.T) {
			op := doc.Paths.Find(openAPIPath(r.Pattern)).GetOperation(r.Method)
			require.NotNil(t, op)
			require.NotNil(t, op.Responses.Value("500"), "every route can answer 500 internal_error")
			if r.Access == "Public" {
				require.NotNil(t, op.Security)
				require.Empty(t, *op.Security, "public routes override the global bearer requirement")
				return
			}
			require.Nil(t, op.Security, "authenticated routes inherit the global bearer requirement")
			unauth := op.Responses.Value("401")
			require.NotNil(t, unauth)
			// PasswordCheckFailed is Unauthorized plus a wrong current password.
			require.Contains(t, []string{"#/components/responses/Unauthorized", "#/components/responses/PasswordCheckFailed"}, unauth.Ref)
			require.NotNil(t, unauth.Value.Headers["WWW-Authenticate"])
			require.NotNil(t, op.Responses.Value("503"), "token keys come from the enclave")
			forbidden := op.Responses.Value("403")
			switch r.Access {
			case "UserOnly":
				require.NotNil(t, forbidden)
				require.Contains(t, []string{"#/components/responses/HumanOnly", "#/components/responses/HumanOnlyOrForbidden",
					"#/components/responses/HumanOnlyOrReauth"}, forbidden.Ref)
			case "AdminOnly":
				require.NotNil(t, forbidden)
				require.Equal(t, "#/components/responses/Forbidden", forbidden.Ref)
			case "AgentIntents":
				// Users get forbidden, agents without the flag intents_disabled.
				require.NotNil(t, forbidden)
				require.Contains(t, []string{"#/components/responses/IntentsForbidden", "#/components/responses/GuardrailDenied"}, forbidden.Ref)
				types := problemTypeEnum(t, forbidden.Value)
				require.Contains(t, types, "forbidden")
				require.Contains(t, types, "intents_disabled")
			case "Any":
				// No role check, except the agents-only profile, policy
				// decisions and the tier's resource caps.
				if forbidden != nil {
					require.Contains(t, []string{"#/components/responses/AgentsOnly", "#/components/responses/PolicyDenied",
						"#/components/responses/PolicyDeniedOrForbidden", "#/components/responses/ResourceLimitExceeded",
						"#/components/responses/ForbiddenOrResourceLimit"}, forbidden.Ref)
				}
			default:
				t.Fatalf("unknown access level %q", r.Access)
			}
		})
	}
}

// TestEveryRouteDocumentsStorageUnavailable: any route can meet a database
// that is down or frozen (its audit event alone needs it), so each one's
// 503 answer lists storage_unavailable and audit_unavailable with
// Retry-After.
func TestEveryRouteDocumentsStorageUnavailable(t *testing.T) {
	doc := loadDoc(t, YAML())
	for _, r := range implementedRoutes {
		t.Run(routeKey(r), func(t *testing.T) {
			op := doc.Paths.Find(openAPIPath(r.Pattern)).GetOperation(r.Method)
			require.NotNil(t, op)
			unavailable := op.Responses.Value("503")
			require.NotNil(t, unavailable, "every route can answer 503 storage_unavailable")
			require.NotNil(t, unavailable.Value.Headers["Retry-After"], "503 storage_unavailable carries Retry-After")
			types := problemTypeEnum(t, unavailable.Value)
			require.Contains(t, types, "storage_unavailable")
			require.Contains(t, types, "audit_unavailable")
		})
	}
}

// problemTypeEnum lists the problem types a problem response documents:
// the const or enum of "type" in its allOf.
func problemTypeEnum(t *testing.T, resp *openapi3.Response) []any {
	t.Helper()
	mt := resp.Content.Get("application/problem+json")
	require.NotNil(t, mt)
	var out []any
	for _, s := range mt.Schema.Value.AllOf {
		typ := s.Value.Properties["type"]
		if typ == nil {
			continue
		}
		if typ.Value.Const != nil {
			out = append(out, typ.Value.Const)
		}
		out = append(out, typ.Value.Enum...)
	}
	return out
}

// routeClasses reads the metering and idempotency classes of routes out of
// proxy/paid.go: the string keys or elements of the named variables.
func routeClasses(t *testing.T) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../proxy/paid.go", nil, 0)
	require.NoError(t, err)
	out := map[string][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
			return true
		}
		cl, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, e := range cl.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Key
			}
			if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				out[vs.Names[0].Name] = append(out[vs.Names[0].Name], mustUnquote(t, lit.Value))
			}
		}
		return false
	})
	require.NotEmpty(t, out["signingPOSTs"])
	require.NotEmpty(t, out["notIdempotent"])
	return out
}

// TestMeteringAndIdempotencyDocumented checks each authenticated route
// against proxy/paid.go: paid routes document 402 and X-PAYMENT (the
// signing POSTs are not metered, so neither), and the state changes that
// take Idempotency-Key document it with its 409 and 422.
func TestMeteringAndIdempotencyDocumented(t *testing.T) {
	doc := loadDoc(t, YAML())
	classes := routeClasses(t)
	signing := func(r implementedRoute) bool {
		if r.Method != "POST" {
			return false
		}
		if slices.Contains(classes["signingPOSTs"], r.Pattern) {
			return true
		}
		for _, p := range classes["signingPrefixes"] {
			if r.Pattern == p || strings.HasPrefix(r.Pattern, p+"/") {
				return true
			}
		}
		return false
	}
	exempt := classes["meteringExempt"]
	hasParam := func(op *openapi3.Operation, ref string) bool {
		for _, p := range op.Parameters {
			if p.Ref == ref {
				return true
			}
		}
		return false
	}
	for _, r := range implementedRoutes {
		if r.Access == "Public" || !strings.HasPrefix(r.Pattern, "/v1/") {
			continue
		}
		t.Run(routeKey(r), func(t *testing.T) {
			op := doc.Paths.Find(openAPIPath(r.Pattern)).GetOperation(r.Method)
			require.NotNil(t, op)
			paid := !signing(r) && !slices.Contains(exempt, r.Method+" "+r.Pattern)
			require.Equal(t, paid, op.Responses.Value("402") != nil, "402 documented iff the route is metered")
			require.Equal(t, paid, hasParam(op, "#/components/parameters/XPayment"), "X-PAYMENT iff the route is metered")
			idem := r.Method != "GET" && r.Method != "HEAD" && !slices.Contains(classes["notIdempotent"], r.Pattern)
			require.Equal(t, idem, hasParam(op, "#/components/parameters/IdempotencyKey"), "Idempotency-Key iff the route takes it")
			if idem {
				mismatch := op.Responses.Value("422")
				require.NotNil(t, mismatch)
				require.Contains(t, problemTypeEnum(t, mismatch.Value), "idempotency_mismatch")
				inFlight := op.Responses.Value("409")
				require.NotNil(t, inFlight)
				require.Contains(t, problemTypeEnum(t, inFlight.Value), "idempotency_in_progress")
			}
		})
	}
}

func TestEveryResponseCarriesRequestID(t *testing.T) {
	doc := loadDoc(t, YAML())
	for p, item := range doc.Paths.Map() {
		for m, op := range item.Operations() {
			for code, resp := range op.Responses.Map() {
				require.NotNil(t, resp.Value.Headers["X-Request-Id"], "%s %s %s", m, p, code)
			}
			for code, resp := range op.Responses.Map() {
				if code[0] == '4' || (code[0] == '5' && !strings.HasPrefix(p, "/v1/health")) {
					require.NotNil(t, resp.Value.Content.Get("application/problem+json"), "%s %s %s", m, p, code)
				}
			}
		}
	}
	for name, resp := range doc.Components.Responses {
		require.NotNil(t, resp.Value.Headers["X-Request-Id"], name)
	}
}

// problemTypesInCode collects every problem type the code can answer: the
// Type constants of api/problem, string literals passed to problem.New
// anywhere in the proxy (audit_unavailable is one), and
// "guardrail_" + every guardrail name (problem.Guardrail).
func problemTypesInCode(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("../proxy/*.go")
	require.NoError(t, err)
	more, err := filepath.Glob("../proxy/*/*.go") // handlers, services such as intents, httperr, the middlewares
	require.NoError(t, err)
	files = append(append(files, more...), "problem/problem.go")
	out := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				if len(n.Names) == 1 && strings.HasPrefix(n.Names[0].Name, "Type") && len(n.Values) == 1 {
					if lit, ok := n.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[mustUnquote(t, lit.Value)] = true
					}
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if ok && sel.Sel.Name == "New" && len(n.Args) == 3 {
					if lit, ok := n.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[mustUnquote(t, lit.Value)] = true
					}
				}
			}
			return true
		})
	}
	for _, name := range guardrailNames(t) {
		out["guardrail_"+name] = true
	}
	return out
}

// guardrailNames returns the values of the Guardrail* string constants of
// package policy, the names problem.Guardrail turns into problem types,
// plus per_chain_guardrails, which the handlers also answer for a per-chain
// daily count.
func guardrailNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../policy/*.go")
	require.NoError(t, err)
	names := []string{"per_chain_guardrails"}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Guardrail") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						names = append(names, mustUnquote(t, lit.Value))
					}
				}
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	require.Greater(t, len(names), 1, "policy declares its guardrail names")
	return names
}

func mustUnquote(t *testing.T, s string) string {
	t.Helper()
	u, err := strconv.Unquote(s)
	require.NoError(t, err)
	return u
}

func TestProblemTypesDocumented(t *testing.T) {
	doc := loadDoc(t, YAML())
	documented, ok := doc.Extensions["x-problem-types"].(map[string]any)
	require.True(t, ok, "x-problem-types is a map")
	inCode := problemTypesInCode(t)
	require.True(t, inCode["audit_unavailable"])
	implemented := map[string]bool{}
	for slug, v := range documented {
		entry, ok := v.(map[string]any)
		require.True(t, ok, slug)
		require.NotEmpty(t, entry["meaning"], slug)
		require.NotNil(t, entry["status"], slug)
		if entry["reserved"] != true {
			implemented[slug] = true
		}
	}
	require.Equal(t, slices.Sorted(maps.Keys(inCode)), slices.Sorted(maps.Keys(implemented)),
		"every problem type the code answers is documented, and no other is marked implemented")

	// The guardrail refusal response lists every guardrail type.
	var guardrails []any
	for _, name := range guardrailNames(t) {
		guardrails = append(guardrails, "guardrail_"+name)
	}
	denied := doc.Components.Responses["GuardrailDenied"]
	require.NotNil(t, denied)
	require.ElementsMatch(t, append([]any{"forbidden", "intents_disabled"}, guardrails...), problemTypeEnum(t, denied.Value))
}

// handlerStructs parses the request and response types of the contract
// (api/*.go) and the structs still private to proxy/handlers, and returns
// each struct's JSON names, and the file that declares SecretTypes.
func handlerStructs(t *testing.T) (structs map[string][]string, apiTypes map[string]bool, secrets *ast.File) {
	t.Helper()
	own, err := filepath.Glob("*.go")
	require.NoError(t, err)
	handlers, err := filepath.Glob("../proxy/handlers/*.go")
	require.NoError(t, err)
	structs, apiTypes = map[string][]string{}, map[string]bool{}
	embeds := map[string][]string{}
	for i, name := range append(own, handlers...) {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && vs.Names[0].Name == "SecretTypes" {
				secrets = f
			}
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			if i < len(own) {
				apiTypes[ts.Name.Name] = true
			}
			for _, fld := range st.Fields.List {
				if id, ok := fld.Type.(*ast.Ident); ok && len(fld.Names) == 0 && fld.Tag == nil {
					embeds[ts.Name.Name] = append(embeds[ts.Name.Name], id.Name) // its fields are promoted
					continue
				}
				if fld.Tag == nil || len(fld.Names) != 1 {
					continue
				}
				tag := reflectTag(mustUnquote(t, fld.Tag.Value))
				if tag != "" && tag != "-" {
					structs[ts.Name.Name] = append(structs[ts.Name.Name], tag)
				}
			}
			return false
		})
	}
	// Promote the JSON names of embedded structs (an outer name shadows an
	// embedded one, as encoding/json does), deepest first.
	var promote func(name string) []string
	promote = func(name string) []string {
		names := slices.Clone(structs[name])
		for _, e := range embeds[name] {
			for _, n := range promote(e) {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		return names
	}
	for name := range embeds {
		structs[name] = promote(name)
	}
	return structs, apiTypes, secrets
}

func reflectTag(tag string) string {
	_, rest, ok := strings.Cut(tag, `json:"`)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, `"`)
	name, _, _ = strings.Cut(name, ",")
	return name
}

func schemaProps(t *testing.T, doc *openapi3.T, name string) []string {
	t.Helper()
	ref := doc.Components.Schemas[name]
	require.NotNil(t, ref, name)
	return allProps(ref)
}

// allProps returns the properties of a schema and of every schema it
// composes with allOf, nested ones included.
func allProps(ref *openapi3.SchemaRef) []string {
	out := slices.Collect(maps.Keys(ref.Value.Properties))
	for _, s := range ref.Value.AllOf {
		out = append(out, allProps(s)...)
	}
	return out
}

func TestSchemasMatchAPITypes(t *testing.T) {
	doc := loadDoc(t, YAML())
	structs, apiTypes, secrets := handlerStructs(t)
	// These schemas are each declared once, as the api type of the same
	// name; every other api type named like a schema is checked as well.
	declared := []string{"VaultCreate", "Vault", "SecretWrite", "Secret", "SignupRequest", "TokenRequest",
		"SignupResponse", "TokenResponse", "AuditEvent", "HSMHealth", "AttestationDocument", "JWK",
		"APIKeyTokenRequest", "RefreshRequest", "RevokeRequest", "ChangePasswordRequest", "SetPasswordRequest",
		"Message", "APIKeyCreate", "APIKey", "APIKeyCreated", "UserSettings", "UserSettingsPatch",
		"AdminUser", "OrgMember", "InviteRequest", "Invite", "MemberRoleUpdate", "IPRuleCreate", "IPRule",
		"PolicyWrite", "Policy", "PolicyConditions", "AgentTokenRequest", "AgentRotateKey", "AgentDirectoryEntry",
		"SigningKeyCreate", "SigningKeyImport", "SignIntentRequest", "TransactionRequest"}
	for _, name := range declared {
		require.True(t, apiTypes[name], "package api declares %s", name)
	}
	for name := range apiTypes {
		if _, ok := doc.Components.Schemas[name]; ok {
			require.ElementsMatch(t, structs[name], schemaProps(t, doc, name), "%s documents api.%s", name, name)
		}
	}

	// SecretTypes is the enum of SecretType.
	require.NotNil(t, secrets)
	var types []any
	ast.Inspect(secrets, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Names[0].Name != "SecretTypes" {
			return true
		}
		for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
			types = append(types, mustUnquote(t, e.(*ast.KeyValueExpr).Key.(*ast.BasicLit).Value))
		}
		return false
	})
	require.NotEmpty(t, types)
	require.ElementsMatch(t, types, doc.Components.Schemas["SecretType"].Value.Enum)
}

// viewFields returns the JSON fields of response type typ: name, whether
// it is left out when empty (omitempty), and its JSON schema type.
func viewFields(t *testing.T, typ reflect.Type) map[string]viewField {
	t.Helper()
	out := map[string]viewField{}
	for f := range slices.Values(reflect.VisibleFields(typ)) {
		tag, ok := f.Tag.Lookup("json")
		require.True(t, ok || f.Anonymous, "%s.%s has a json tag", typ.Name(), f.Name)
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous || name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		out[name] = viewField{omitEmpty: strings.Contains(opts, "omitempty"), jsonType: jsonTypeOf(ft)}
	}
	return out
}

type viewField struct {
	omitEmpty bool
	jsonType  string
}

func jsonTypeOf(t reflect.Type) string {
	if t == reflect.TypeFor[json.RawMessage]() {
		return "" // any JSON value, read by the proxy
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	default:
		return "object"
	}
}

// schemaFields returns the properties of schema name (its allOf parts
// included): whether each is required, and its type ("" when untyped).
func schemaFields(t *testing.T, doc *openapi3.T, name string) map[string]viewField {
	t.Helper()
	ref := doc.Components.Schemas[name]
	require.NotNil(t, ref, name)
	out := map[string]viewField{}
	parts := append([]*openapi3.SchemaRef{ref}, ref.Value.AllOf...)
	for _, s := range parts {
		for prop, ps := range s.Value.Properties {
			typ := "" // untyped, or one of several types
			if ps.Value.Type != nil && len(*ps.Value.Type) == 1 {
				typ = (*ps.Value.Type)[0]
			}
			out[prop] = viewField{omitEmpty: true, jsonType: typ}
		}
	}
	for _, s := range parts {
		for _, req := range s.Value.Required {
			f := out[req]
			f.omitEmpty = false
			out[req] = f
		}
	}
	return out
}

// TestSchemasMatchHandlerViews checks the response types of the Intents
// API, which the handlers answer, against their schemas field by field:
// the same JSON names, a required property never left out (no
// omitempty), an optional one left out when unset (omitempty), and the
// same JSON type.
func TestSchemasMatchHandlerViews(t *testing.T) {
	doc := loadDoc(t, YAML())
	tests := map[string]struct {
		value  any
		schema string
	}{
		"signing key":            {SigningKey{}, "SigningKey"},
		"signing key list":       {List[SigningKey]{}, "SigningKeyList"},
		"rotated signing key":    {SigningKeyRotated{}, "SigningKeyRotated"},
		"transaction":            {Transaction{}, "Transaction"},
		"transaction list":       {List[Transaction]{}, "TransactionList"},
		"transaction intent":     {SignedTransactionIntent{}, "SignedTransactionIntent"},
		"signature":              {SignatureResult{}, "SignatureResult"},
		"simulation":             {SimulationResult{}, "SimulationResult"},
		"balance change":         {BalanceChange{}, "BalanceChange"},
		"simulation bundle":      {SimulationBundleResult{}, "SimulationBundleResult"},
		"balance":                {Balance{}, "Balance"},
		"native balance":         {NativeBalance{}, "NativeBalance"},
		"token balance":          {TokenBalance{}, "TokenBalance"},
		"signing key create":     {SigningKeyCreate{}, "SigningKeyCreate"},
		"signing key import":     {SigningKeyImport{}, "SigningKeyImport"},
		"transaction request":    {TransactionRequest{}, "TransactionRequest"},
		"sign intent request":    {SignIntentRequest{}, "SignIntentRequest"},
		"access tuple":           {AccessTuple{}, "AccessTuple"},
		"eip-7702 authorization": {Authorization{}, "Authorization"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := viewFields(t, reflect.TypeOf(tc.value))
			want := schemaFields(t, doc, tc.schema)
			require.ElementsMatch(t, slices.Collect(maps.Keys(want)), slices.Collect(maps.Keys(got)), "%s documents the fields", tc.schema)
			request := strings.HasSuffix(tc.schema, "Create") || strings.HasSuffix(tc.schema, "Import") ||
				strings.HasSuffix(tc.schema, "Request") || tc.schema == "AccessTuple" || tc.schema == "Authorization"
			for prop, w := range want {
				g := got[prop]
				if !request {
					require.Equal(t, w.omitEmpty, g.omitEmpty, "%s.%s: omitempty iff optional", tc.schema, prop)
				}
				if w.jsonType != "" && g.jsonType != "" && !(w.jsonType == "number" && g.jsonType == "integer") {
					require.Equal(t, w.jsonType, g.jsonType, "%s.%s: JSON type", tc.schema, prop)
				}
			}
		})
	}
}

func TestSchemasAcceptAndRefuse(t *testing.T) {
	doc := loadDoc(t, YAML())
	long := strings.Repeat("a", 256)
	meta65 := map[string]any{}
	for i := range 65 {
		meta65["k"+strconv.Itoa(i)] = "v"
	}
	hash := strings.Repeat("1c", 32)
	tx := `{"chain_id":8453,"to":"0x000000000000000000000000000000000000dEaD","value":"0x2386f26fc10000"}`
	signingKey := `{"agent_id":"0190f5e4-8f3b-7c4e-9a1b-2c3d4e5f6a7b","chain":"ethereum","address":"0x000000000000000000000000000000000000dEaD",` +
		`"public_key":"0x04ab","curve":"secp256k1","version":1,"key_version":1,"imported":false,"status":"active","created_at":"2025-01-02T03:04:05Z"}`
	txRecord := `{"id":"0190f5e4-8f3b-7c4e-9a1b-2c3d4e5f6a7b","agent_id":"0190f5e4-8f3b-7c4e-9a1b-2c3d4e5f6a7c","chain":"base",` +
		`"chain_id":8453,"key_version":1,"type":2,"from":"0x000000000000000000000000000000000000dEaD","to":"",` +
		`"value":"0x2386f26fc10000","nonce":0,"tx_hash":"0x` + hash + `","status":"signed",` +
		`"created_at":"2025-01-02T03:04:05Z","updated_at":"2025-01-02T03:04:05Z"`
	secret := `{"id":"0190f5e4-8f3b-7c4e-9a1b-2c3d4e5f6a7b","vault_id":"0190f5e4-8f3b-7c4e-9a1b-2c3d4e5f6a7c",` +
		`"path":"prod/db","type":"password","metadata":{},"version":1,"expires_at":null,` +
		`"created_at":"2025-01-02T03:04:05Z","updated_at":"2025-01-02T03:04:05Z"`
	tests := map[string]struct {
		schema string
		body   string
		valid  bool
	}{
		"ok secret write":             {"SecretWrite", `{"type":"password","value":"x"}`, true},
		"ok secret write null fields": {"SecretWrite", `{"type":"api_key","value":"","metadata":null,"expires_at":null}`, true},
		"fail unknown secret type":    {"SecretWrite", `{"type":"note","value":"x"}`, false},
		// The decoder refuses unknown fields; the schema says so too.
		"fail unknown field":        {"SecretWrite", `{"type":"password","value":"x","valu":"y"}`, false},
		"fail missing value":        {"SecretWrite", `{"type":"password"}`, false},
		"fail empty metadata key":   {"SecretWrite", `{"type":"password","value":"x","metadata":{"":"v"}}`, false},
		"fail non-string metadata":  {"SecretWrite", `{"type":"password","value":"x","metadata":{"k":1}}`, false},
		"ok vault create":           {"VaultCreate", `{"name":"prod","description":"d"}`, true},
		"fail blank vault name":     {"VaultCreate", `{"name":"   "}`, false},
		"fail vault name too long":  {"VaultCreate", `{"name":"` + long + `"}`, false},
		"ok last page":              {"VaultList", `{"items":[],"next_cursor":null}`, true},
		"fail list without cursor":  {"VaultList", `{"items":[]}`, false},
		"ok secret read":            {"Secret", secret + `,"value":"s3cret","encoding":"utf8"}`, true},
		"fail read no encoding":     {"Secret", secret + `,"value":"s3cret"}`, false},
		"fail secret read no value": {"Secret", secret + `}`, false},
		"ok secret info":            {"SecretInfo", secret + `}`, true},
		"ok unchained audit event": {"AuditEvent", `{"id":1,"occurred_at":"2025-01-02T03:04:05.123456Z","request_id":"00112233445566aa",` +
			`"actor_type":"anonymous","actor_id":"","action":"http.request","resource":"/x","outcome":"failure","status":404,` +
			`"client_ip":"127.0.0.1","chain_seq":null,"prev_id":null,"hash":null}`, true},
		"ok api key create":         {"APIKeyCreate", `{"name":"ci","expires_at":null}`, true},
		"fail api key blank name":   {"APIKeyCreate", `{"name":"  "}`, false},
		"ok settings patch":         {"UserSettingsPatch", `{"require_passkey_for_vaults":false}`, true},
		"fail settings patch empty": {"UserSettingsPatch", `{}`, false},
		"ok invite":                 {"InviteRequest", `{"email":"a@example.com","role":"member"}`, true},
		"fail invite capital role":  {"InviteRequest", `{"email":"a@example.com","role":"Admin"}`, false},
		"ok admin user":             {"AdminUser", `{"id":"0190f5e4-8f3b-7c4e-9a1b-2c3d4e5f6a7b","email":"a@example.com","platform_role":null,"created_at":"2025-01-02T03:04:05Z"}`, true},
		"fail admin user org role":  {"AdminUser", `{"id":"0190f5e4-8f3b-7c4e-9a1b-2c3d4e5f6a7b","email":"a@example.com","platform_role":"owner","created_at":"2025-01-02T03:04:05Z"}`, false},
		"ok problem":                {"ProblemDetails", `{"type":"not_found","title":"Not Found","status":404,"detail":"vault not found"}`, true},
		"fail problem no type":      {"ProblemDetails", `{"title":"Not Found","status":404,"detail":"x"}`, false},

		"ok signing key create":         {"SigningKeyCreate", `{"chain":"base"}`, true},
		"fail signing key create empty": {"SigningKeyCreate", `{}`, false},
		"fail signing key chain id int": {"SigningKeyCreate", `{"chain":8453}`, false},
		"ok signing key":                {"SigningKey", signingKey, true},
		"fail signing key bad curve":    {"SigningKey", strings.Replace(signingKey, "secp256k1", "p256", 1), false},
		"ok sign personal_sign":         {"SignIntentRequest", `{"intent_type":"personal_sign","chain_id":8453,"message":"hello"}`, true},
		"ok sign digest alias":          {"SignIntentRequest", `{"intent_type":"digest","hash":"0x` + hash + `"}`, true},
		"ok sign transaction":           {"SignIntentRequest", `{"intent_type":"transaction","chain":"base","transaction":` + tx + `}`, true},
		"fail sign unknown intent":      {"SignIntentRequest", `{"intent_type":"raw","hash":"0x` + hash + `"}`, false},
		"fail sign short hash":          {"SignIntentRequest", `{"intent_type":"eip712_digest","hash":"0x1234"}`, false},
		// The decoder refuses unknown fields; a misspelt field must not
		// be silently dropped from what is signed.
		"fail sign unknown field": {"SignIntentRequest", `{"intent_type":"personal_sign","msg":"hello"}`, false},
		"ok token transfer": {"TransactionRequest", `{"chain_id":1,"to":"0x000000000000000000000000000000000000dEaD",` +
			`"token_mint":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48","value":"1.5","token_decimals":6}`, true},
		"ok tx numeric value":  {"TransactionRequest", `{"chain_id":"8453","value":0,"data":"0x6000"}`, true},
		"fail tx no value":     {"TransactionRequest", `{"chain_id":1,"to":"0x000000000000000000000000000000000000dEaD"}`, false},
		"fail tx type 5":       {"TransactionRequest", `{"chain_id":1,"value":"0x0","type":5}`, false},
		"fail tx unknown":      {"TransactionRequest", `{"chain_id":1,"value":"0x0","gasLimit":21000}`, false},
		"fail tx decimals 37":  {"TransactionRequest", `{"chain_id":1,"value":"1","token_mint":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48","token_decimals":37}`, false},
		"ok transaction":       {"Transaction", txRecord + `,"signed_tx":"0x02f8"}`, true},
		"fail transaction hex": {"Transaction", strings.Replace(txRecord, `"value":"0x2386f26fc10000"`, `"value":"10000000000000000"`, 1) + `}`, false},
		"ok tx intent answer": {"SignedTransactionIntent", txRecord + `,"signed_tx":"0x02f8","intent_type":"transaction",` +
			`"hash":"0x` + hash + `","signature":"0x` + strings.Repeat("ab", 65) + `"}`, true},
		"ok signature": {"SignatureResult", `{"intent_type":"personal_sign","chain":"base","chain_id":8453,` +
			`"address":"0x000000000000000000000000000000000000dEaD","key_version":1,"hash":"0x` + hash + `",` +
			`"signature":"0x` + strings.Repeat("ab", 65) + `","r":"0x` + hash + `","s":"0x` + hash + `","v":27}`, true},
		"fail signature v 0": {"SignatureResult", `{"intent_type":"personal_sign","chain":"base","chain_id":8453,` +
			`"address":"0x000000000000000000000000000000000000dEaD","key_version":1,"hash":"0x` + hash + `","v":0}`, false},
		"ok simulation": {"SimulationResult", `{"chain":"base","chain_id":8453,"success":false,"gas_used":21000,"gas_estimate":0,` +
			`"return_data":"0x","balance_changes":[{"address":"0x000000000000000000000000000000000000dEaD","asset":"native","delta":"-5"}],` +
			`"partial":false,"revert_reason":"always reverts"}`, true},
		"ok bundle wrapped":    {"SimulationBundleRequest", `{"transactions":[` + tx + `]}`, true},
		"ok bundle bare array": {"SimulationBundleRequest", `[` + tx + `,` + tx + `]`, true},
		"fail bundle empty":    {"SimulationBundleRequest", `{"transactions":[]}`, false},
		"fail bundle 17":       {"SimulationBundleRequest", `[` + strings.TrimSuffix(strings.Repeat(tx+`,`, 17), `,`) + `]`, false},
		"ok balance": {"Balance", `{"chain":"base","chain_id":8453,"address":"0x000000000000000000000000000000000000dEaD",` +
			`"native":{"balance":"1000","formatted":"0.000000000000001","decimals":18},` +
			`"tokens":[{"contract_address":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","balance":"0"}]}`, true},
	}
	metaBody, err := json.Marshal(map[string]any{"type": "password", "value": "x", "metadata": meta65})
	require.NoError(t, err)
	tests["fail 65 metadata keys"] = struct {
		schema string
		body   string
		valid  bool
	}{"SecretWrite", string(metaBody), false}

	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var v any
			require.NoError(t, json.Unmarshal([]byte(tc.body), &v))
			err := doc.Components.Schemas[tc.schema].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
			if tc.valid {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := map[string]struct {
		in      any
		want    any
		wantErr error
	}{
		"ok integer keys": {in: map[string]any{"responses": map[any]any{200: "ok", "default": []any{map[any]any{true: 1}}}},
			want: map[string]any{"responses": map[string]any{"200": "ok", "default": []any{map[string]any{"true": 1}}}}},
		// A mapping used as a key has no JSON spelling.
		"fail mapping key": {in: map[any]any{"a": map[any]any{[2]int{}: 1}}, wantErr: ErrNonStringKey},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := normalize(tc.in)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got)
			}
		})
	}
}
