package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/iggygo/iggy/adapters/config"
)

// corsPolicy is [http.cors] (http.md 1): the outermost layer, which answers
// preflights itself, before authentication.
type corsPolicy struct {
	enabled        bool
	anyOrigin      bool
	origins        []string
	methods        string
	anyHeader      bool
	headers        string
	exposed        string
	credentials    bool
	privateNetwork bool
}

func newCORSPolicy(c config.CORS) *corsPolicy {
	p := &corsPolicy{enabled: c.Enabled, credentials: c.AllowCredentials, privateNetwork: c.AllowPrivateNetwork,
		methods: joinTrimmed(c.AllowedMethods), headers: joinTrimmed(c.AllowedHeaders),
		exposed: joinTrimmed(c.ExposedHeaders)}
	for _, o := range c.AllowedOrigins {
		o = strings.TrimSpace(o)
		switch {
		case o == "*":
			p.anyOrigin = true
		case o != "":
			p.origins = append(p.origins, o)
		}
	}
	p.anyHeader = slices.ContainsFunc(c.AllowedHeaders, func(h string) bool { return strings.TrimSpace(h) == "*" })
	return p
}

func joinTrimmed(list []string) string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" && s != "*" {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// handle adds the CORS headers; it answers a preflight itself and then
// reports true.
func (p *corsPolicy) handle(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if !p.enabled || origin == "" {
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	allowed := p.anyOrigin || slices.Contains(p.origins, origin)
	if allowed {
		if p.anyOrigin && !p.credentials {
			h.Set("Access-Control-Allow-Origin", "*")
		} else {
			h.Set("Access-Control-Allow-Origin", origin)
		}
		if p.credentials {
			h.Set("Access-Control-Allow-Credentials", "true")
		}
		if p.exposed != "" {
			h.Set("Access-Control-Expose-Headers", p.exposed)
		}
	}
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	if allowed {
		h.Set("Access-Control-Allow-Methods", p.methods)
		headers := p.headers
		if p.anyHeader {
			headers = r.Header.Get("Access-Control-Request-Headers")
		}
		if headers != "" {
			h.Set("Access-Control-Allow-Headers", headers)
		}
		if p.privateNetwork && r.Header.Get("Access-Control-Request-Private-Network") == "true" {
			h.Set("Access-Control-Allow-Private-Network", "true")
		}
	}
	w.WriteHeader(http.StatusOK)
	return true
}
