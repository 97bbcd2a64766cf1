package handlers

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// Env-var layout (documented in api/openapi.yaml and the README): env vars
// are secrets under env/ of the organization's vault named "shared", then of
// the requested vault, then under env/branches/<branch>/ of the requested
// vault; later layers override earlier ones. A name is the last segment.
const (
	EnvPrefix       = "env/"
	EnvBranchPrefix = "env/branches/"
	EnvSharedVault  = "shared"
	maxEnvPerLayer  = 2000
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

type envLayer struct{ source, vaultID, prefix string }

// ResolveEnvVars answers GET /v1/vaults/{id}/env-vars/resolve[?branch=].
// Values are decrypted by the enclave with the caller's own authority;
// paths the caller may not read are listed in denied, never resolved: for
// an agent with the intents API that includes every private_key and
// ssh_key secret (reason private_key_blocked).
func (h *Handlers) ResolveEnvVars(w http.ResponseWriter, r *http.Request) error {
	vaultID, err := pathID(r, "id", "vault")
	if err != nil {
		return err
	}
	branch := r.URL.Query().Get("branch")
	if branch != "" {
		if _, err := SecretPath(EnvBranchPrefix + branch + "/x"); err != nil {
			return problem.BadRequest(problem.TypeInvalidRequest, "branch must be a valid secret path segment sequence")
		}
	}
	p := principal(r)
	auditlog.FromContext(r.Context()).SetResource("vault/" + vaultID + "/env-vars")
	if _, _, err := h.visibleVault(r, vaultID); err != nil {
		return err
	}
	var layers []envLayer
	shared, err := h.Shares.VaultIDByName(r.Context(), p.OrgID, EnvSharedVault)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err == nil && shared != vaultID {
		layers = append(layers, envLayer{"org", shared, EnvPrefix})
	}
	layers = append(layers, envLayer{"vault", vaultID, EnvPrefix})
	if branch != "" {
		layers = append(layers, envLayer{"branch", vaultID, EnvBranchPrefix + branch + "/"})
	}
	out := api.EnvVarsResolved{Variables: map[string]string{}, Sources: map[string]string{}, Skipped: []api.EnvVarEntry{}, Denied: []api.EnvVarEntry{}}
	for _, l := range layers {
		if err := h.resolveLayer(r, l, &out); err != nil {
			return err
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

// resolveLayer reads one layer's env vars into out.
func (h *Handlers) resolveLayer(r *http.Request, l envLayer, out *api.EnvVarsResolved) error {
	ctx := r.Context()
	p := principal(r)
	access, err := h.access(r, l.vaultID)
	if err != nil {
		return err
	}
	if err := h.loadPolicySet(ctx, access, l.vaultID); err != nil {
		return err
	}
	c, err := h.caller(ctx)
	if err != nil {
		return err
	}
	secs, err := h.Vaults.ListSecrets(ctx, p.OrgID, l.vaultID, l.prefix, "", maxEnvPerLayer)
	if err != nil {
		return err
	}
	now := h.now()
	for _, s := range secs {
		if l.prefix == EnvPrefix && strings.HasPrefix(s.Path, EnvBranchPrefix) {
			continue // branch overrides are their own layer
		}
		name := s.Path[strings.LastIndexByte(s.Path, '/')+1:]
		entry := api.EnvVarEntry{Source: l.source, Path: s.Path}
		switch {
		case !envName.MatchString(name):
			entry.Reason = "not a valid environment variable name"
			out.Skipped = append(out.Skipped, entry)
			continue
		case s.ExpiresAt != nil && !now.Before(*s.ExpiresAt):
			entry.Reason = "expired"
			out.Skipped = append(out.Skipped, entry)
			continue
		case !access.allows(s.Path, policy.PermissionRead):
			entry.Reason = "policy_denied"
			out.Denied = append(out.Denied, entry)
			continue
		case intentsKeyBlocked(p, s.Type):
			entry.Reason = problem.TypePrivateKeyBlocked
			out.Denied = append(out.Denied, entry)
			continue
		}
		sec, sealed, err := h.Vaults.GetSecret(ctx, p.OrgID, l.vaultID, s.Path)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		plain, err := h.openSecret(ctx, c, access, sec, sealed)
		if errors.Is(err, wire.ErrPrivateKeyBlocked) {
			// The type bound into the sealed value (or a legacy value
			// that binds none), whatever the row says.
			entry.Reason = problem.TypePrivateKeyBlocked
			out.Denied = append(out.Denied, entry)
			continue
		}
		if errors.Is(err, wire.ErrForbidden) {
			entry.Reason = "denied by the enclave"
			out.Denied = append(out.Denied, entry)
			continue
		}
		if errors.Is(err, wire.ErrKEKDestroyed) {
			entry.Reason = problem.TypeKEKDestroyed
			out.Skipped = append(out.Skipped, entry)
			continue
		}
		if err != nil {
			return err
		}
		if !utf8.Valid(plain) {
			// An environment variable is text; a binary value is never
			// altered into one.
			entry.Reason = "binary value (read it with its encoding from the secrets API)"
			out.Skipped = append(out.Skipped, entry)
			continue
		}
		out.Variables[name] = string(plain)
		out.Sources[name] = l.source
	}
	return nil
}
