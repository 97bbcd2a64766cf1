// Package cli implements the `ocv` command: auditors' and operators' tools
// (`ocv audit verify`, `ocv attest verify`) today, the API client commands
// as they land.
//
// Trust level: client side; it trusts only what it verifies itself.
package cli
