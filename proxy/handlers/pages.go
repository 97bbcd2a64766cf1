package handlers

import (
	"context"
	"net/http"

	"github.com/opencustody/ocv/proxy/auditlog"
)

// listByID answers GET on a list whose cursor is the UUID of the last row
// shown: it reads limit and cursor, names resource in the audit entry,
// fetches one row more than the page with list and shows each row by view.
func listByID[S, T any](w http.ResponseWriter, r *http.Request, resource string,
	list func(ctx context.Context, after string, limit int) ([]S, error), view func(S) T, id func(S) string) error {
	limit, cursor, err := idPageParams(r)
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource(resource)
	rows, err := list(r.Context(), cursor, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(rows, limit, view, id))
}

// idPageParams reads limit and cursor of a list whose cursor is a row id.
func idPageParams(r *http.Request) (limit int, cursor string, err error) {
	if limit, cursor, err = pageParams(r); err != nil {
		return 0, "", err
	}
	return limit, cursor, cursorID(cursor)
}

// forgetAPIKeys drops deleted personal API keys from this replica's key
// cache at once (the others learn it from the database notification).
func (h *Handlers) forgetAPIKeys(ids ...string) {
	if h.Verifier == nil || h.Verifier.APIKeys == nil {
		return
	}
	for _, id := range ids {
		h.Verifier.APIKeys.Forget(id)
	}
}
