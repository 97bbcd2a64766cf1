package stack

import "time"

// WaitProxyExit waits up to d for the proxy to end on its own (a crash
// hook) and reports whether it did.
func (s *Stack) WaitProxyExit(d time.Duration) bool {
	s.t.Helper()
	select {
	case <-s.proxy.done:
		return true
	case <-time.After(d):
		return false
	}
}

// StartProxyEnv starts the proxy again with the environment it first had
// plus kv, which wins over it (for example "OCV_TEST_CRASH_AFTER_COMMIT="
// turns a crash hook off), and waits until it answers. Later restarts
// (StartProxy) keep kv.
func (s *Stack) StartProxyEnv(kv ...string) {
	s.t.Helper()
	s.proxyArgs = append(append([]string(nil), s.proxyArgs...), kv...)
	s.StartProxy()
}
