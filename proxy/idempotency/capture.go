package idempotency

import (
	"bytes"
	"net/http"
)

// capture passes a response through while keeping a copy of its status, the
// replayable headers as they were when the response started, and up to max
// bytes of its body.
type capture struct {
	http.ResponseWriter
	keep     []string
	max      int
	status   int
	header   map[string][]string
	body     bytes.Buffer
	overflow bool
}

func (c *capture) WriteHeader(status int) {
	if c.status == 0 && status >= 200 {
		c.start(status)
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *capture) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.start(http.StatusOK)
	}
	if !c.overflow {
		if c.body.Len()+len(p) > c.max {
			c.overflow = true
			c.body = bytes.Buffer{}
		} else {
			c.body.Write(p)
		}
	}
	return c.ResponseWriter.Write(p)
}

func (c *capture) start(status int) {
	c.status = status
	c.header = map[string][]string{}
	h := c.ResponseWriter.Header()
	for _, name := range c.keep {
		if v := h.Values(name); len(v) > 0 {
			c.header[http.CanonicalHeaderKey(name)] = append([]string(nil), v...)
		}
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// storable reports whether the response may be replayed: a 2xx whose body
// fitted the bound.
func (c *capture) storable() bool {
	return c.status >= 200 && c.status < 300 && !c.overflow
}
