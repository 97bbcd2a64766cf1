// Package cli implements the `ocv` command: the API client (login and the
// token cache, vaults, secrets, `ocv run` that injects secrets into a child
// process) and the auditors' and operators' offline tools (`ocv audit
// verify`, `ocv attest verify`).
//
// The client never prints a token, password or secret value unless asked
// for it (`ocv token`, `ocv secret get --field value` or `--reveal`, and
// `--json` answers of `ocv secret get`). Logins are cached per API URL in
// $XDG_CONFIG_HOME/ocv/credentials.json (0600 in a 0700 directory).
//
// Trust level: client side; it trusts only what it verifies itself (the
// server's TLS certificate against the configured CA).
package cli
