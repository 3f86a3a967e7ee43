package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

const (
	// httpReplyBytesMax bounds one REST reply read (a snapshot ZIP is the
	// largest).
	httpReplyBytesMax = 256 << 20
	// httpErrorBytesMax bounds the error body kept for the message.
	httpErrorBytesMax = 64 << 10
)

// errNotOverHTTP is an operation the REST API has no route for.
var errNotOverHTTP = errors.New("the REST API has no route for this; use --transport tcp, quic or ws")

// httpAPI is api over the server's REST API (http.md): a login gives a
// JWT, a personal access token is used as the bearer directly.
type httpAPI struct {
	base    string // scheme://host:port
	http    *http.Client
	bearer  string
	jwt     bool // bearer is a login's JWT
	userID  uint32
	timeout time.Duration
}

func dialHTTP(addr string, tlsCfg *tls.Config, requestTimeout time.Duration) *httpAPI {
	scheme := "http"
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if tlsCfg != nil {
		scheme, transport.TLSClientConfig = "https", tlsCfg
	}
	return &httpAPI{base: scheme + "://" + addr, http: &http.Client{Transport: transport}, timeout: requestTimeout}
}

// do sends one request with a JSON body (nil: none) and decodes a JSON
// reply into out (nil: ignore). A 404 of the hand-built not_found kind is
// found=false; any other refusal is an error carrying its Iggy code.
func (h *httpAPI) do(method, path string, query url.Values, body, out any) (found bool, err error) {
	raw, err := h.send(method, path, query, body)
	if errors.Is(err, errAbsent) {
		return false, nil
	}
	if err != nil || out == nil || len(raw) == 0 {
		return err == nil, err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return false, fmt.Errorf("%s %s: reply: %w", method, path, err)
	}
	return true, nil
}

// errAbsent is a read of an entity that does not exist.
var errAbsent = errors.New("not found")

func (h *httpAPI) send(method, path string, query url.Values, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	u := h.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, usageErrorf("%s %s: %v", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if h.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+h.bearer)
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return nil, connectionError{fmt.Errorf("%s %s: %w", method, path, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return nil, replyError(method, path, resp)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, httpReplyBytesMax))
	if err != nil {
		return nil, connectionError{fmt.Errorf("%s %s: reply: %w", method, path, err)}
	}
	return raw, nil
}

// replyError reads an error reply (http.md 2): the JSON body's id is the
// Iggy code, except for the hand-built errors whose id is the status.
func replyError(method, path string, resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, httpErrorBytesMax))
	var body struct {
		ID     uint32 `json:"id"`
		Code   string `json:"code"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(raw, &body) != nil || body.Code == "" {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if body.ID == uint32(resp.StatusCode) {
		if body.Code == "not_found" && method == http.MethodGet {
			return errAbsent
		}
		if body.Code == "not_found" {
			body.ID = uint32(wire.ResourceNotFound)
		} else {
			return fmt.Errorf("%s %s: HTTP %d %s: %s", method, path, resp.StatusCode, body.Code, body.Reason)
		}
	}
	code := wire.Code(body.ID)
	if body.Reason == "" || body.Reason == sentence(code) {
		return fmt.Errorf("%s %s: %w", method, path, &client.Error{Code: code})
	}
	return fmt.Errorf("%s %s (%s): %w", method, path, body.Reason, &client.Error{Code: code})
}

// pathID is an identifier as a path segment.
func pathID(i wire.Identifier) string {
	if i.Numeric {
		return strconv.FormatUint(uint64(i.ID), 10)
	}
	return url.PathEscape(i.Name)
}

func streamPath(s wire.Identifier) string { return "/streams/" + pathID(s) }

func topicPath(s, t wire.Identifier) string { return streamPath(s) + "/topics/" + pathID(t) }

func (h *httpAPI) Ping() error {
	_, err := h.send(http.MethodGet, "/ping", nil, nil)
	return err
}

type identityJSON struct {
	UserID      uint32 `json:"user_id"`
	AccessToken struct {
		Token string `json:"token"`
	} `json:"access_token"`
}

func (h *httpAPI) LoginUser(username, password string) (client.LoginInfo, error) {
	var id identityJSON
	_, err := h.do(http.MethodPost, "/users/login", nil, map[string]string{"username": username, "password": password}, &id)
	if err != nil {
		return client.LoginInfo{}, err
	}
	h.bearer, h.userID, h.jwt = id.AccessToken.Token, id.UserID, true
	return client.LoginInfo{UserID: id.UserID}, nil
}

// LoginWithToken uses the personal access token as the bearer (http.md
// 3.1); a first read checks it, so a bad token fails here as over tcp.
func (h *httpAPI) LoginWithToken(token string) (client.LoginInfo, error) {
	h.bearer = token
	_, err := h.send(http.MethodGet, "/personal-access-tokens", nil, nil)
	return client.LoginInfo{}, err
}

// GetMe: HTTP has no connection to describe; the user id is the login's.
func (h *httpAPI) GetMe() (wire.ClientDetails, error) {
	return wire.ClientDetails{ClientInfo: wire.ClientInfo{UserID: h.userID, Transport: 3, Address: strings.TrimPrefix(strings.TrimPrefix(h.base, "http://"), "https://")}}, nil
}

// snapshotCompressionNames are the REST spellings of the compressions.
var snapshotCompressionNames = map[uint8]string{wire.SnapshotCompressionStored: "Stored", wire.SnapshotCompressionDeflated: "Deflated"}

func (h *httpAPI) GetSnapshotFile(compression uint8, _ []uint8) ([]byte, error) {
	return h.send(http.MethodPost, "/snapshot", nil, map[string]any{"compression": snapshotCompressionNames[compression], "snapshot_types": []string{"All"}})
}

// Close logs a password login out (DELETE /users/logout), so that each
// command does not leave a server session behind until its JWT expires; a
// personal access token has no login to end.
func (h *httpAPI) Close() error {
	defer h.http.CloseIdleConnections()
	if !h.jwt {
		return nil
	}
	h.jwt = false
	_, err := h.send(http.MethodDelete, "/users/logout", nil, nil)
	return err
}
