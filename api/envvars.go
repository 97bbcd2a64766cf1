package api

import "strings"

// EnvName maps a secret path to the environment variable name the clients
// (`ocv run`, the MCP server) give it: the last segment upper-cased, every
// character outside [A-Z0-9] turned into '_', and a leading digit prefixed
// with '_'.
func EnvName(path string) string {
	last := path[strings.LastIndexByte(path, '/')+1:]
	var b strings.Builder
	for _, r := range strings.ToUpper(last) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		name = "_" + name
	}
	return name
}

// EnvVarEntry names a secret the env-var resolver skipped or was denied,
// and why.
type EnvVarEntry struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// EnvVarsResolved is the answer of GET /v1/vaults/{id}/env-vars/resolve:
// the variables, the layer each came from, and the secrets left out.
type EnvVarsResolved struct {
	Variables map[string]string `json:"variables"`
	Sources   map[string]string `json:"sources"`
	Skipped   []EnvVarEntry     `json:"skipped"`
	Denied    []EnvVarEntry     `json:"denied"`
}
