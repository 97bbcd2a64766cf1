package handlers

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/opencustody/ocv/api/problem"
)

// lookalikeScripts are the scripts whose letters are commonly mistaken for
// one another; a vault name may use at most one of them.
var lookalikeScripts = []*unicode.RangeTable{unicode.Latin, unicode.Greek, unicode.Cyrillic, unicode.Armenian, unicode.Cherokee}

// normalizeVaultName returns a trimmed vault name in NFC and its look-alike
// key, or a 400 for a name with a control or invisible format character
// (bidi controls, zero-width characters, the BOM) or one that mixes
// look-alike scripts (a Cyrillic "а" in a Latin name). Names compare by
// key: NFKC, case folded, runs of white space as one space, so "Prod",
// "PROD", "ｐｒｏｄ" and "prod " are one name.
func normalizeVaultName(raw string) (name, key string, err error) {
	name = norm.NFC.String(strings.TrimSpace(raw))
	var script *unicode.RangeTable
	for _, r := range name {
		switch {
		case unicode.IsControl(r):
			return "", "", problem.BadRequest(problem.TypeInvalidRequest, "name must not contain control characters")
		case unicode.Is(unicode.Cf, r):
			return "", "", problem.BadRequest(problem.TypeInvalidRequest,
				"name must not contain invisible format characters (bidi controls, zero-width characters, BOM)")
		}
		for _, s := range lookalikeScripts {
			if !unicode.Is(s, r) {
				continue
			}
			if script != nil && script != s {
				return "", "", problem.BadRequest(problem.TypeInvalidRequest,
					"name must not mix letters of scripts that look alike (Latin, Greek, Cyrillic, …)")
			}
			script = s
		}
	}
	folded := norm.NFKC.String(cases.Fold().String(norm.NFKC.String(name)))
	return name, strings.Join(strings.Fields(folded), " "), nil
}
