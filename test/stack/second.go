package stack

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// StartSecondEnclave starts another ocv-enclave process beside the stack's
// own: the same binary, HSM token (SOFTHSM2_CONF, label, PIN) and
// attestation CA, listening on its own socket, as a second enclave of one
// deployment would. The proxy does not use it; tests reach it with a raw
// session to the returned address. It is stopped when the test ends.
func (s *Stack) StartSecondEnclave() string {
	s.t.Helper()
	sock := filepath.Join(s.Dir, "enclave2.sock")
	_ = os.Remove(sock)
	env := append(append([]string(nil), s.enclaveEnv...), "OCV_ENCLAVE_LISTEN=unix://"+sock) // the last value wins
	p := s.run("enclave2", Bin(s.t, "ocv-enclave"), env)
	s.t.Cleanup(func() {
		if p.exited() {
			return
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && !p.exited() {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return "unix://" + sock
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("second enclave did not listen on %s; logs:\n%s", sock, s.Logs())
	return ""
}
