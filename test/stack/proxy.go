package stack

// KillProxy stops the proxy abruptly (SIGKILL), as a crash would.
func (s *Stack) KillProxy() {
	s.t.Helper()
	if s.proxy != nil {
		_ = s.proxy.cmd.Process.Kill()
		<-s.proxy.done
	}
}

// StartProxy starts the proxy again with the environment it first had and
// waits until it answers.
func (s *Stack) StartProxy() {
	s.t.Helper()
	s.proxy = s.run("proxy", Bin(s.t, "ocv-proxy"), s.proxyArgs)
	s.waitHTTP()
}
