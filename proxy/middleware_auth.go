package proxy

import (
	"errors"
	"net/http"
	"strings"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/httperr"
)

// authenticate is spec order 4: routes other than public ones need a valid
// bearer token (401 otherwise), and the route table's access level decides
// whether this kind of principal may call the route (403).
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := routeFrom(r.Context())
		if route == nil || route.Access == Public {
			next.ServeHTTP(w, r)
			return
		}
		token, ok := bearer(r)
		if !ok {
			unauthorized(w, "a bearer token is required")
			return
		}
		p, err := s.verifier.Verify(r.Context(), token)
		if errors.Is(err, auth.ErrInvalidToken) {
			unauthorized(w, "the access token is invalid, expired or revoked")
			return
		}
		if err != nil {
			httperr.Write(w, err)
			return
		}
		auditlog.FromContext(r.Context()).SetOrg(p.OrgID, p.Type, p.ID)
		switch {
		case route.Access == UserOnly && p.Type != auth.PrincipalUser:
			problem.Write(w, problem.New(http.StatusForbidden, problem.TypeHumanOnly, "this route is for human users only"))
			return
		case route.Access == AdminOnly && (p.Type != auth.PrincipalUser || !isPlatformAdmin(p.PlatformRole)):
			problem.Write(w, problem.New(http.StatusForbidden, problem.TypeForbidden, "this route is for administrators only"))
			return
		case route.Access == AgentIntents && p.Type != auth.PrincipalAgent:
			problem.Write(w, problem.New(http.StatusForbidden, problem.TypeForbidden, "this route is for agents only"))
			return
		case route.Access == AgentIntents && !p.Agent.IntentsAPIEnabled:
			problem.Write(w, problem.New(http.StatusForbidden, problem.TypeIntentsDisabled, "the agent's token does not enable the intents API (intents_api_enabled)"))
			return
		}
		if slot, ok := r.Context().Value(principalSlotKey{}).(*string); ok {
			*slot = p.ID
		}
		ctx := auth.WithBearer(auth.WithPrincipal(r.Context(), p), token)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// isPlatformAdmin reports whether a platform role (the JWT's
// platform_role claim, not the organization role) may call AdminOnly routes.
func isPlatformAdmin(role string) bool { return role == "admin" || role == "super_admin" }

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

func unauthorized(w http.ResponseWriter, detail string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="ocv"`)
	problem.Write(w, problem.Unauthorized(problem.TypeInvalidToken, detail))
}
