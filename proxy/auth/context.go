package auth

import "context"

type principalKey struct{}

// WithPrincipal returns ctx carrying the authenticated caller.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the authenticated caller, if any.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

type bearerKey struct{}

// WithBearer returns ctx carrying the caller's raw bearer credential, which
// the proxy forwards to the enclave so that the enclave can authorise the
// caller itself. It is never logged.
func WithBearer(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, bearerKey{}, token)
}

// BearerFrom returns the caller's raw bearer credential.
func BearerFrom(ctx context.Context) string {
	s, _ := ctx.Value(bearerKey{}).(string)
	return s
}
