package api

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
