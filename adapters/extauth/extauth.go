// Package extauth calls the external authentication service of
// [external_auth] (AUTH-15..27): one JSON POST per login of a user the node
// does not know, bounded by external_auth.timeout.
//
// The documents give the callout's meaning, not its encoding; ours (DESIGN.md
// "External authentication") is
//
//	request:  {"transport":"tcp","client_address":"10.0.0.7:51324","username":"alice","password":"..."}
//	answer:   {"decision":"allow","username":"iggy-user"} or {"decision":"deny"}
//
// with any 2xx status. An answer that is not that JSON fails the login (AUTH-18);
// a timeout, a 5xx or 429, or a service that cannot be reached is retryable.
package extauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// answerBytesMax bounds the service's answer that is read; a longer one is invalid.
const answerBytesMax = 64 << 10

// Request is the JSON body posted to the service.
type Request struct {
	Transport     string `json:"transport"`
	ClientAddress string `json:"client_address"`
	Username      string `json:"username"`
	Password      string `json:"password"`
}

// Answer is the JSON body the service answers with.
type Answer struct {
	Decision string `json:"decision"` // "allow" or "deny"
	Username string `json:"username"` // the existing Iggy user an allow names
}

// Caller posts callouts to one service.
type Caller struct {
	url     string
	timeout time.Duration
	http    *http.Client
}

// New returns a Caller of url whose every callout ends within timeout.
func New(url string, timeout time.Duration) *Caller {
	return &Caller{url: url, timeout: timeout, http: &http.Client{Timeout: timeout}}
}

// Run answers a compute.KindExternalAuth job (the codes of compute.KindExternalAuth).
func (c *Caller) Run(r compute.Request) compute.Result {
	name, code := c.call(Request{Transport: r.Transport, ClientAddress: r.ClientAddress, Username: r.Username, Password: r.Password})
	return compute.Result{ID: r.ID, Code: uint32(code), Data: []byte(name)}
}

func (c *Caller) call(q Request) (string, wire.Code) {
	body, err := json.Marshal(q)
	if err != nil {
		return "", wire.InvalidCredentials // strings always marshal
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return "", wire.TransientNotAccepted // the URL was validated at boot
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return "", wire.TransientNotAccepted // timed out or unreachable (AUTH-25)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return "", wire.TransientNotAccepted // AUTH-26
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, answerBytesMax+1))
	if err != nil {
		return "", wire.TransientNotAccepted // the answer timed out midway
	}
	name, err := decide(resp.StatusCode, raw)
	if err != nil {
		return "", wire.InvalidCredentials
	}
	return name, wire.OK
}

// errDenied is a deny, or an answer that cannot be an allow.
var errDenied = errors.New("external_auth: login denied")

// decide reads the service's answer: the username of an allow, or errDenied
// wrapped with why (a deny, or an invalid answer: AUTH-17, AUTH-18).
func decide(status int, raw []byte) (string, error) {
	if status < 200 || status > 299 {
		return "", fmt.Errorf("%w: status %d", errDenied, status)
	}
	if len(raw) > answerBytesMax {
		return "", fmt.Errorf("%w: answer over %d bytes", errDenied, answerBytesMax)
	}
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("%w: %v", errDenied, err)
	}
	if a.Decision != "allow" || !wire.UsernameLengthValid(a.Username) {
		return "", fmt.Errorf("%w: decision %q for %q", errDenied, a.Decision, a.Username)
	}
	return a.Username, nil
}
