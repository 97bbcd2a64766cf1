package policy

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"time"
)

// The canonical encoding of a vault's policy set, which the enclave MACs
// together with the set's version counter. All integers are big-endian.
//
//	set      = magic version-byte str(vault_id) u64(version) u32(n) policy*n
//	magic    = "OCVPSET"  (7 bytes) ; version-byte = 0x01
//	str(s)   = u32(len(s)) bytes(s)
//	list(xs) = u32(len(xs)) str(x)*len(xs)
//	policy   = str(id) str(secret_path_pattern) str(principal_type)
//	           str(principal_id) list(permissions) str(effect) i64(priority)
//	           expiry list(ip_cidrs) window list(environment_in)
//	expiry   = 0x00 | 0x01 i64(unix seconds) u32(nanoseconds)
//	window   = 0x00 | 0x01 str(start) str(end) u8(n) weekday-byte*n
//
// Canonical form: policies are sorted by ID (then by their encoding, so
// even duplicate IDs order deterministically); permissions, ip_cidrs,
// environment_in and days are sorted and deduplicated; the expiry is UTC
// without a monotonic reading. So the same set gives the same bytes in any
// slice order, and DecodeSet accepts only canonical bytes: whatever it
// decodes re-encodes to the identical input.
const (
	setMagic   = "OCVPSET"
	setVersion = 0x01
)

// Bounds DecodeSet enforces (EncodeSet does not: the caller validates
// before it encodes, and the store should cap policies per vault).
const (
	MaxSetBytes    = 8 << 20 // an encoded set
	MaxSetPolicies = 10000   // policies in one set
)

// EncodeSet returns the canonical encoding of a vault's policy set at a
// version (format above). It never fails; it does not validate, so encode
// only validated policies (DecodeSet refuses invalid ones).
func EncodeSet(vaultID string, version uint64, policies []Policy) []byte {
	encoded := make([][]byte, len(policies))
	for i := range policies {
		encoded[i] = encodePolicy(&policies[i])
	}
	order := make([]int, len(policies))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(policies[a].ID, policies[b].ID); c != 0 {
			return c
		}
		return bytes.Compare(encoded[a], encoded[b])
	})
	var e encoder
	e.buf = append(e.buf, setMagic...)
	e.buf = append(e.buf, setVersion)
	e.str(vaultID)
	e.buf = binary.BigEndian.AppendUint64(e.buf, version)
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(len(policies)))
	for _, i := range order {
		e.buf = append(e.buf, encoded[i]...)
	}
	return e.buf
}

func encodePolicy(p *Policy) []byte {
	var e encoder
	e.str(p.ID)
	e.str(p.Pattern)
	e.str(p.PrincipalType)
	e.str(p.PrincipalID)
	perms := make([]string, len(p.Permissions))
	for i, q := range p.Permissions {
		perms[i] = string(q)
	}
	e.list(perms)
	e.str(string(p.Effect))
	e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(int64(p.Priority)))
	if p.ExpiresAt == nil {
		e.buf = append(e.buf, 0)
	} else {
		t := p.ExpiresAt.UTC()
		e.buf = append(e.buf, 1)
		e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(t.Unix()))
		e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(t.Nanosecond()))
	}
	e.list(p.Conditions.IPCIDRs)
	if w := p.Conditions.TimeWindow; w == nil {
		e.buf = append(e.buf, 0)
	} else {
		e.buf = append(e.buf, 1)
		e.str(w.Start)
		e.str(w.End)
		days := slices.Clone(w.Days)
		slices.Sort(days)
		days = slices.Compact(days)
		e.buf = append(e.buf, byte(len(days)))
		for _, d := range days {
			e.buf = append(e.buf, byte(d))
		}
	}
	e.list(p.Conditions.EnvironmentIn)
	return e.buf
}

type encoder struct{ buf []byte }

func (e *encoder) str(s string) {
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(len(s)))
	e.buf = append(e.buf, s...)
}

// list writes xs sorted and deduplicated.
func (e *encoder) list(xs []string) {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	xs = slices.Compact(xs)
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(len(xs)))
	for _, x := range xs {
		e.str(x)
	}
}

// utcInstant is the instant DecodeSet returns for an expiry.
func utcInstant(sec int64, nsec uint32) time.Time {
	return time.Unix(sec, int64(nsec)).UTC()
}
