package enclave

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/mdlayher/vsock"

	"github.com/opencustody/ocv/enclave/wire"
)

// listen opens the listener for addr. A Unix socket's directory is created
// (0700) and a stale socket file from a previous run is removed, unless an
// enclave still answers on it.
func listen(addr string) (net.Listener, error) {
	a, err := wire.ParseAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: listen: %w", ErrInvalidConfig, err)
	}
	switch a.Network {
	case wire.NetworkUnix:
		return listenUnix(a.Path)
	default:
		var ln *vsock.Listener
		if a.HasCID {
			ln, err = vsock.ListenContextID(a.CID, a.Port, nil)
		} else {
			ln, err = vsock.Listen(a.Port, nil)
		}
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", a, err)
		}
		return ln, nil
	}
}

func listenUnix(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating socket directory: %w", err)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%w: %s exists and is not a socket", ErrAddressInUse, path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			_ = c.Close()
			return nil, fmt.Errorf("%w: %s", ErrAddressInUse, path)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("removing stale socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on unix socket: %w", err)
	}
	// Only this user (the proxy runs as it in simulator mode) may connect.
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("restricting socket permissions: %w", err)
	}
	return ln, nil
}
