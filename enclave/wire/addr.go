package wire

import (
	"fmt"
	"strconv"
	"strings"
)

// Address networks.
const (
	NetworkUnix  = "unix"
	NetworkVsock = "vsock"
)

// Addr is a parsed enclave address: "unix:///path/to.sock" (or
// "unix://relative/path.sock") or "vsock://CID:PORT". A listener may omit the
// CID ("vsock://:PORT") to accept on any context id; HasCID tells.
type Addr struct {
	Network string
	Path    string
	CID     uint32
	HasCID  bool
	Port    uint32
}

// ParseAddr parses an enclave address.
func ParseAddr(s string) (Addr, error) {
	switch {
	case strings.HasPrefix(s, "unix://"):
		p := strings.TrimPrefix(s, "unix://")
		if p == "" || strings.ContainsRune(p, 0) {
			return Addr{}, fmt.Errorf("%w: empty unix socket path", ErrAddress)
		}
		return Addr{Network: NetworkUnix, Path: p}, nil
	case strings.HasPrefix(s, "vsock://"):
		rest := strings.TrimPrefix(s, "vsock://")
		cidStr, portStr, ok := strings.Cut(rest, ":")
		if !ok {
			return Addr{}, fmt.Errorf("%w: vsock address needs CID:PORT", ErrAddress)
		}
		a := Addr{Network: NetworkVsock}
		port, err := strconv.ParseUint(portStr, 10, 32)
		if err != nil {
			return Addr{}, fmt.Errorf("%w: vsock port", ErrAddress)
		}
		a.Port = uint32(port)
		if cidStr != "" {
			cid, err := strconv.ParseUint(cidStr, 10, 32)
			if err != nil {
				return Addr{}, fmt.Errorf("%w: vsock cid", ErrAddress)
			}
			a.CID, a.HasCID = uint32(cid), true
		}
		return a, nil
	default:
		return Addr{}, fmt.Errorf("%w: want unix:// or vsock://", ErrAddress)
	}
}

// String formats the address back.
func (a Addr) String() string {
	if a.Network == NetworkUnix {
		return "unix://" + a.Path
	}
	if !a.HasCID {
		return fmt.Sprintf("vsock://:%d", a.Port)
	}
	return fmt.Sprintf("vsock://%d:%d", a.CID, a.Port)
}
