package policy

import (
	"encoding/binary"
	"fmt"
	"time"
)

// minPolicyBytes is the smallest possible encoded policy: four empty
// strings, an empty list, an empty string, the priority, two flags and two
// empty lists. It bounds the declared count against the bytes left.
const minPolicyBytes = 4*4 + 4 + 4 + 8 + 1 + 4 + 1 + 4

// minUnix and maxUnix bound an expiry to the years 1 to 9999, where
// time.Unix round-trips exactly.
const (
	minUnix = -62135596800
	maxUnix = 253402300799
)

// maxListLen bounds any decoded list before Validate applies the exact
// per-field limits.
const maxListLen = 64

// DecodeSet parses an encoding made by EncodeSet. It accepts only canonical
// bytes within MaxSetBytes and MaxSetPolicies, and every policy must pass
// Validate; errors wrap ErrInvalidEncoding (and ErrInvalidPolicy for a
// policy that decodes but is invalid). It never panics on any input and
// allocates in proportion to the input. The returned policies are not
// prepared (see Policy.Prepare). Verify the MAC before trusting the result.
func DecodeSet(b []byte) (vaultID string, version uint64, policies []Policy, err error) {
	if len(b) > MaxSetBytes {
		return "", 0, nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalidEncoding, MaxSetBytes)
	}
	d := decoder{buf: b}
	if string(d.bytes(len(setMagic))) != setMagic || d.u8() != setVersion {
		return "", 0, nil, fmt.Errorf("%w: unknown magic or format version", ErrInvalidEncoding)
	}
	vaultID = d.str()
	version = d.u64()
	n := d.u32()
	if d.err == nil && idProblem(vaultID) != "" {
		d.fail("vault id " + idProblem(vaultID))
	}
	if d.err == nil && (n > MaxSetPolicies || uint64(n)*minPolicyBytes > uint64(len(d.buf))) {
		d.fail("policy count out of bounds")
	}
	if d.err != nil {
		return "", 0, nil, d.err
	}
	policies = make([]Policy, 0, n)
	for i := range n {
		p := d.policy()
		if d.err != nil {
			return "", 0, nil, fmt.Errorf("decoding policy %d: %w", i, d.err)
		}
		if err := p.Validate(); err != nil {
			return "", 0, nil, fmt.Errorf("%w: policy %d: %w", ErrInvalidEncoding, i, err)
		}
		if i > 0 && policies[i-1].ID >= p.ID {
			return "", 0, nil, fmt.Errorf("%w: policy ids not strictly ascending", ErrInvalidEncoding)
		}
		policies = append(policies, p)
	}
	if len(d.buf) != 0 {
		return "", 0, nil, fmt.Errorf("%w: trailing bytes", ErrInvalidEncoding)
	}
	return vaultID, version, policies, nil
}

// decoder reads from buf; the first failure sticks and later reads return
// zero values, so callers check err once per record.
type decoder struct {
	buf []byte
	err error
}

func (d *decoder) fail(why string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrInvalidEncoding, why)
	}
	d.buf = nil
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.buf) {
		d.fail("truncated")
		return nil
	}
	out := d.buf[:n]
	d.buf = d.buf[n:]
	return out
}

func (d *decoder) u8() byte {
	if b := d.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.bytes(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) flag() bool {
	switch d.u8() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("flag byte not 0 or 1")
	return false
}

func (d *decoder) str() string {
	n := d.u32()
	if n > MaxPathBytes {
		d.fail("string longer than 1024 bytes")
		return ""
	}
	return string(d.bytes(int(n)))
}

// list reads a list that must be strictly ascending (sorted, no duplicates);
// an empty list decodes as nil.
func (d *decoder) list() []string {
	n := d.u32()
	if n > maxListLen || uint64(n)*4 > uint64(len(d.buf)) {
		d.fail("list length out of bounds")
		return nil
	}
	var xs []string
	for i := range n {
		x := d.str()
		if i > 0 && xs[i-1] >= x {
			d.fail("list not strictly ascending")
		}
		if d.err != nil {
			return nil
		}
		xs = append(xs, x)
	}
	return xs
}

func (d *decoder) policy() Policy {
	var p Policy
	p.ID = d.str()
	p.Pattern = d.str()
	p.PrincipalType = d.str()
	p.PrincipalID = d.str()
	for _, q := range d.list() {
		p.Permissions = append(p.Permissions, Permission(q))
	}
	p.Effect = Effect(d.str())
	prio := int64(d.u64())
	if p.Priority = int(prio); int64(p.Priority) != prio {
		d.fail("priority out of range")
	}
	if d.flag() {
		sec, nsec := int64(d.u64()), d.u32()
		if nsec >= 1e9 || sec < minUnix || sec > maxUnix {
			d.fail("expiry out of range")
		}
		t := utcInstant(sec, nsec)
		p.ExpiresAt = &t
	}
	p.Conditions.IPCIDRs = d.list()
	if d.flag() {
		w := &TimeWindow{Start: d.str(), End: d.str()}
		n := d.u8()
		for i := range int(n) {
			day := time.Weekday(d.u8())
			if i > 0 && w.Days[i-1] >= day {
				d.fail("days not strictly ascending")
			}
			if d.err != nil {
				break
			}
			w.Days = append(w.Days, day)
		}
		p.Conditions.TimeWindow = w
	}
	p.Conditions.EnvironmentIn = d.list()
	return p
}
