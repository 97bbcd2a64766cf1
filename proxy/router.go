package proxy

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/handlers"
)

// Access says who may call a route.
type Access int

// Access levels.
const (
	// Public routes skip authentication (health, discovery, sign-in).
	Public Access = iota
	// Any authenticated principal, human or agent.
	Any
	// UserOnly routes answer 403 human_only to agents.
	UserOnly
	// AdminOnly routes need the admin or super-admin platform role.
	AdminOnly
	// AgentIntents routes (the Intents API) are for agents whose token
	// carries intents_api_enabled: humans get 403 forbidden, agents without
	// the flag 403 intents_disabled.
	AgentIntents
)

// Route is one row of the route table.
type Route struct {
	Method  string
	Pattern string // literal segments, {name} for one segment, {name...} last for the rest
	Access  Access
	Action  string // the audit action
	Handler handlers.Func

	built *builtRoute // set by newRouter; the table's literals leave it nil
}

// builtRoute is what newRouter computes once per route.
type builtRoute struct {
	segs    []string
	metered bool // isMeteredRoute
}

// routeMetered is isMeteredRoute(rt) without recomputing it on every
// request for the router's own routes.
func routeMetered(rt *Route) bool {
	if rt != nil && rt.built != nil {
		return rt.built.metered
	}
	return isMeteredRoute(rt)
}

// router matches escaped request paths against the route table. Matching
// works on the escaped path, so that an encoded '/' inside a secret path
// segment stays visible to the handler's validation.
type router struct {
	routes []*Route
}

func newRouter(routes []Route) *router {
	rt := &router{}
	for i := range routes {
		r := routes[i]
		r.built = &builtRoute{segs: strings.Split(strings.TrimPrefix(r.Pattern, "/"), "/"), metered: isMeteredRoute(&r)}
		rt.routes = append(rt.routes, &r)
	}
	return rt
}

// match finds the route for r and sets its path values. With no route it
// returns the methods the path allows (for 405) or nil (404).
func (rt *router) match(r *http.Request) (*Route, []string) {
	path := r.URL.EscapedPath()
	if !strings.HasPrefix(path, "/") {
		return nil, nil
	}
	segs := strings.Split(path[1:], "/")
	var allowed []string
	for _, route := range rt.routes {
		values, ok := matchSegs(route.built.segs, segs)
		if !ok {
			continue
		}
		if route.Method != r.Method && !(r.Method == http.MethodHead && route.Method == http.MethodGet) {
			allowed = append(allowed, route.Method)
			continue
		}
		for i := 0; i+1 < len(values); i += 2 {
			r.SetPathValue(values[i], values[i+1])
		}
		return route, nil
	}
	return nil, allowed
}

// matchSegs matches pattern segments against escaped path segments and
// returns name, value pairs. {name} values are unescaped; a {name...} value
// stays escaped for its handler to validate segment by segment.
func matchSegs(pattern, segs []string) ([]string, bool) {
	if !segsFit(pattern, segs) {
		return nil, false
	}
	var values []string
	for i, p := range pattern {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "...}") {
			if i >= len(segs) {
				return nil, false
			}
			return append(values, p[1:len(p)-4], strings.Join(segs[i:], "/")), true
		}
		if i >= len(segs) {
			return nil, false
		}
		if strings.HasPrefix(p, "{") {
			v, err := url.PathUnescape(segs[i])
			if err != nil || v == "" {
				return nil, false
			}
			values = append(values, p[1:len(p)-1], v)
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return values, len(pattern) == len(segs)
}

// segsFit reports, without allocating, whether segs have pattern's shape:
// its literal segments in place and as many segments (at least one for a
// {name...} rest). matchSegs runs it first, so that the routes a request
// does not match cost no allocation.
func segsFit(pattern, segs []string) bool {
	for i, p := range pattern {
		if i >= len(segs) {
			return false
		}
		if strings.HasPrefix(p, "{") {
			if strings.HasSuffix(p, "...}") {
				return true
			}
			continue
		}
		if p != segs[i] {
			return false
		}
	}
	return len(pattern) == len(segs)
}

func notFound(w http.ResponseWriter) {
	problem.Write(w, problem.New(http.StatusNotFound, problem.TypeNotFound, "no such route"))
}

func methodNotAllowed(w http.ResponseWriter, allowed []string) {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	problem.Write(w, problem.New(http.StatusMethodNotAllowed, problem.TypeMethodNotAllowed, "the route does not allow this method"))
}
