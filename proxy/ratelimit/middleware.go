package ratelimit

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/opencustody/ocv/api/problem"
)

// TypeRateLimited is the problem type of a 429 answer.
const TypeRateLimited = "rate_limited"

// credentialKeyBytes is how much of the credential's SHA-256 keys its
// bucket: 128 bits, collision-free in practice and not the token.
const credentialKeyBytes = 16

// CredentialKey returns the bucket key of a raw bearer credential: a hex
// SHA-256 prefix, so the limiter never holds the token itself.
func CredentialKey(credential string) string {
	sum := sha256.Sum256([]byte(credential))
	return hex.EncodeToString(sum[:credentialKeyBytes])
}

// Middleware limits each request by its client IP (ipOf) and then by its
// credential (credOf returns the raw bearer value, or "" when there is none;
// it is hashed here). Either function may be nil to skip that dimension. An
// empty bucket answers 429 problem rate_limited with Retry-After in whole
// seconds, rounded up. It panics when l is nil.
func Middleware(l *Limiter, ipOf func(*http.Request) string, credOf func(*http.Request) string) func(http.Handler) http.Handler {
	if l == nil {
		panic("ratelimit: Middleware with a nil Limiter")
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if ipOf != nil {
				if ok, wait := l.AllowIP(ipOf(r)); !ok {
					tooMany(w, wait)
					return
				}
			}
			if credOf != nil {
				if cred := credOf(r); cred != "" {
					if ok, wait := l.AllowCredential(CredentialKey(cred)); !ok {
						tooMany(w, wait)
						return
					}
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

func tooMany(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.FormatInt(RetryAfterSeconds(wait), 10))
	problem.Write(w, problem.New(http.StatusTooManyRequests, TypeRateLimited, "too many requests; retry after the Retry-After delay"))
}

// RetryAfterSeconds rounds wait up to whole seconds, at least 1.
func RetryAfterSeconds(wait time.Duration) int64 {
	return max(1, int64(math.Ceil(wait.Seconds())))
}
