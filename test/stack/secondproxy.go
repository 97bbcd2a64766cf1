package stack

import (
	"syscall"
	"time"
)

// StartSecondProxy starts another ocv-proxy on the stack's database and
// enclave, as a second replica behind one load balancer would run: the same
// environment (public URL, data directory and its dev CA) plus kv, listening
// on its own port. The returned stack's Do and DoHeaders reach it; its
// process is stopped when the test ends.
func (s *Stack) StartSecondProxy(kv ...string) *Stack {
	s.t.Helper()
	args := append(append([]string(nil), s.proxyArgs...), "OCV_LISTEN=127.0.0.1:"+freePort(s.t)) // the last value wins
	args = append(args, kv...)
	s2 := &Stack{t: s.t, Dir: s.Dir, DatabaseURL: s.DatabaseURL, EnclaveAddr: s.EnclaveAddr, SocketPath: s.SocketPath,
		RootPath: s.RootPath, PCR0: s.PCR0, HTTP: s.HTTP, ProxyIdentity: s.ProxyIdentity, ProxyIdentityPath: s.ProxyIdentityPath,
		proxyArgs: args}
	s2.BaseURL = "https://" + lastValue(args, "OCV_LISTEN")
	s2.proxy = s2.run("proxy2", Bin(s.t, "ocv-proxy"), args)
	s.t.Cleanup(func() {
		if s2.proxy.exited() {
			return
		}
		_ = s2.proxy.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s2.proxy.done:
		case <-time.After(15 * time.Second):
			_ = s2.proxy.cmd.Process.Kill()
			<-s2.proxy.done
		}
	})
	s2.waitHTTP()
	return s2
}

// lastValue is the value of the last name=value setting of env.
func lastValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if len(kv) > len(name) && kv[:len(name)] == name && kv[len(name)] == '=' {
			v = kv[len(name)+1:]
		}
	}
	return v
}
