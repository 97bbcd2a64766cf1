package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// shareOpener is who opens sh. Link shares (anyone_with_link,
// external_email) open for anyone who passes their passphrase and
// allowlist: addressed is true and opener is empty. A creator, user or agent
// share opens only with a bearer token of the principal it is addressed to
// (a creator share: the user it goes back to), in the share's organization;
// any other caller, and a missing or invalid token, gets addressed false.
func (h *Handlers) shareOpener(r *http.Request, sh store.Share) (opener auth.Principal, addressed bool, err error) {
	var want string
	switch sh.RecipientType {
	case "anyone_with_link", "external_email":
		return auth.Principal{}, true, nil
	case "creator", "user":
		want = auth.PrincipalUser
	case "agent":
		want = auth.PrincipalAgent
	default:
		return auth.Principal{}, false, nil
	}
	if sh.RecipientID == nil || h.Verifier == nil {
		return auth.Principal{}, false, nil
	}
	token, ok := shareBearer(r)
	if !ok {
		return auth.Principal{}, false, nil
	}
	p, err := h.Verifier.Verify(r.Context(), token)
	if errors.Is(err, auth.ErrInvalidToken) {
		return auth.Principal{}, false, nil
	}
	if err != nil {
		return auth.Principal{}, false, err
	}
	if p.Type != want || p.ID != *sh.RecipientID || p.OrgID != sh.OrgID {
		return auth.Principal{}, false, nil
	}
	return p, true, nil
}

// shareBearer reads an Authorization: Bearer header (public routes are not
// authenticated by the middleware).
func shareBearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != "" && len(token) <= maxBearerBytes
}

// maxBearerBytes bounds a bearer token read on the public share route.
const maxBearerBytes = 16 << 10

// shareCreator is the principal the share is opened as: the creator as it
// is now (its current role; an agent's current claims). A creator who left
// the organization or an inactive agent makes the share unusable.
func (h *Handlers) shareCreator(r *http.Request, sh store.Share, now time.Time) (auth.Principal, error) {
	gone := shareGone("the share's creator no longer has access")
	if sh.CreatorType == auth.PrincipalAgent {
		a, err := h.Agents.GetAgent(r.Context(), sh.OrgID, sh.CreatorID)
		if errors.Is(err, store.ErrNotFound) {
			return auth.Principal{}, gone
		}
		if err != nil {
			return auth.Principal{}, err
		}
		if a.Status != store.AgentActive {
			return auth.Principal{}, gone
		}
		claims, err := h.agentClaims(r, a, now)
		if err != nil {
			return auth.Principal{}, err
		}
		return auth.Principal{Type: auth.PrincipalAgent, ID: a.ID, OrgID: a.OrgID, Agent: claims}, nil
	}
	role, platformRole, err := h.Shares.MemberRole(r.Context(), sh.OrgID, sh.CreatorID)
	if errors.Is(err, store.ErrNotFound) {
		return auth.Principal{}, gone
	}
	if err != nil {
		return auth.Principal{}, err
	}
	return auth.Principal{Type: auth.PrincipalUser, ID: sh.CreatorID, OrgID: sh.OrgID, Role: role, PlatformRole: platformRole}, nil
}
