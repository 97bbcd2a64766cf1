package idempotency

import (
	"bytes"
	"net/http"
	"strconv"
)

// capture holds the response of the request that holds a key until its
// idempotent transaction has committed: nothing reaches the client before
// the answer is stored with the effect. It keeps the status, the
// replayable headers as they were when the response started, and the
// body; a body over max bytes is sent but not stored.
type capture struct {
	keep   []string
	max    int
	header http.Header
	status int
	kept   map[string][]string
	body   bytes.Buffer
}

func newCapture(keep []string, max int) *capture {
	return &capture{keep: keep, max: max, header: http.Header{}}
}

func (c *capture) Header() http.Header { return c.header }

func (c *capture) WriteHeader(status int) {
	if c.status == 0 && status >= 200 {
		c.start(status)
	}
}

func (c *capture) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.start(http.StatusOK)
	}
	return c.body.Write(p)
}

func (c *capture) start(status int) {
	c.status = status
	c.kept = map[string][]string{}
	for _, name := range c.keep {
		if v := c.header.Values(name); len(v) > 0 {
			c.kept[http.CanonicalHeaderKey(name)] = append([]string(nil), v...)
		}
	}
}

// storable reports whether the response may be replayed: a 2xx whose body
// fitted the bound.
func (c *capture) storable() bool {
	return c.status >= 200 && c.status < 300 && c.body.Len() <= c.max
}

// sendTo writes the held response to w.
func (c *capture) sendTo(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	if c.body.Len() > 0 && h.Get("Content-Length") == "" {
		h.Set("Content-Length", strconv.Itoa(c.body.Len()))
	}
	w.WriteHeader(c.status)
	if c.body.Len() > 0 {
		_, _ = w.Write(c.body.Bytes())
	}
}
