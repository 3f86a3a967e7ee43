package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/iggygo/iggy/client"
)

// Default server addresses per transport (the server's config.toml).
var defaultAddresses = map[string]string{
	client.TransportTCP:       "127.0.0.1:8090",
	client.TransportQUIC:      "127.0.0.1:8080",
	client.TransportWebSocket: "127.0.0.1:8092",
	transportHTTP:             "127.0.0.1:3000",
}

// transportHTTP selects the server's REST API (httpAPI) in place of the
// binary protocol.
const transportHTTP = "http"

// Environment variables read for credentials, as Iggy's CLI reads them.
const (
	envUsername = "IGGY_USERNAME"
	envPassword = "IGGY_PASSWORD"
	envToken    = "IGGY_TOKEN"
)

// flags are the options every command takes.
type flags struct {
	transport, address          string
	username, password, token   string
	tls, tlsInsecure            bool
	tlsCAFile, tlsDomain        string
	output                      string
	sessionFile                 string
	requestTimeout, dialTimeout time.Duration
}

func (f *flags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.transport, "transport", client.TransportTCP, "transport: tcp, quic, ws or http")
	fs.StringVar(&f.address, "address", "", "server address host:port (default: the transport's default port on 127.0.0.1)")
	fs.StringVarP(&f.username, "username", "u", "", "username (or "+envUsername+")")
	fs.StringVarP(&f.password, "password", "p", "", "password (or "+envPassword+")")
	fs.StringVarP(&f.token, "token", "t", "", "personal access token (or "+envToken+")")
	fs.BoolVar(&f.tls, "tls", false, "use TLS (TCP+TLS, WSS, HTTPS; QUIC always encrypts and then verifies the certificate)")
	fs.StringVar(&f.tlsCAFile, "tls-ca-file", "", "PEM file of the CA that signed the server's certificate")
	fs.StringVar(&f.tlsDomain, "tls-domain", "", "name to verify the server's certificate against (default: the address's host)")
	fs.BoolVar(&f.tlsInsecure, "tls-insecure", false, "do not verify the server's certificate")
	fs.StringVarP(&f.output, "output", "o", outputTable, "output format: table or json")
	fs.StringVar(&f.sessionFile, "session-file", "", "file of the saved login session (default: ~/.iggy/session.json)")
	fs.DurationVar(&f.requestTimeout, "timeout", client.RequestTimeoutDefault, "bound on one request's round trip")
	fs.DurationVar(&f.dialTimeout, "connect-timeout", client.DialTimeoutDefault, "bound on connecting")
}

// check refuses flag values no command can use.
func (f *flags) check() error {
	switch f.transport {
	case client.TransportTCP, client.TransportQUIC, client.TransportWebSocket, transportHTTP:
	default:
		return usageErrorf("--transport %q: want tcp, quic, ws or http", f.transport)
	}
	if f.output != outputTable && f.output != outputJSON {
		return usageErrorf("--output %q: want table or json", f.output)
	}
	if f.token != "" && (f.username != "" || f.password != "") {
		return usageErrorf("--token and --username/--password exclude each other")
	}
	return nil
}

// app is one invocation: its flags, streams and the connection it opened.
type app struct {
	flags  flags
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	env    func(string) string
	conn   api
}

func (a *app) addr() string {
	if a.flags.address != "" {
		return a.flags.address
	}
	return defaultAddresses[a.flags.transport]
}

// dial connects without logging in (over http: prepares the requests).
func (a *app) dial() (api, error) {
	opts := client.Options{Transport: a.flags.transport, RequestTimeout: a.flags.requestTimeout, DialTimeout: a.flags.dialTimeout}
	cfg, err := a.tlsConfig()
	if err != nil {
		return nil, err
	}
	if a.flags.transport == transportHTTP {
		a.conn = dialHTTP(a.addr(), cfg, a.flags.requestTimeout)
		return a.conn, nil
	}
	opts.TLS = cfg
	c, err := client.Dial(context.Background(), a.addr(), opts)
	if err != nil {
		return nil, connectionError{fmt.Errorf("connect to %s over %s: %w", a.addr(), a.flags.transport, err)}
	}
	a.conn = c
	return c, nil
}

// tlsConfig is nil without --tls (and its companions).
func (a *app) tlsConfig() (*tls.Config, error) {
	f := a.flags
	if !f.tls && f.tlsCAFile == "" && f.tlsDomain == "" && !f.tlsInsecure {
		return nil, nil
	}
	cfg := &tls.Config{ServerName: f.tlsDomain, InsecureSkipVerify: f.tlsInsecure, MinVersion: tls.VersionTLS12}
	if f.tlsCAFile != "" {
		pem, err := os.ReadFile(f.tlsCAFile)
		if err != nil {
			return nil, usageErrorf("--tls-ca-file: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, usageErrorf("--tls-ca-file %s: no PEM certificate in it", f.tlsCAFile)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// connect dials and logs in with the first credentials found: flags, then
// environment, then the saved session.
func (a *app) connect() (api, error) {
	c, err := a.dial()
	if err != nil {
		return nil, err
	}
	username, password, token := a.credentials()
	switch {
	case token != "":
		_, err = c.LoginWithToken(token)
	case username != "":
		_, err = c.LoginUser(username, password)
	default:
		s, found, serr := loadSession(a.sessionPath())
		if serr != nil {
			return nil, serr
		}
		if !found {
			return nil, usageErrorf("no credentials: pass --username and --password or --token, set %s and %s or %s, or run `iggy session login`",
				envUsername, envPassword, envToken)
		}
		_, err = c.LoginWithToken(s.Token)
	}
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	return c, nil
}

// credentials are the flags', else the environment's.
func (a *app) credentials() (username, password, token string) {
	f := a.flags
	if f.token != "" || f.username != "" {
		return f.username, f.password, f.token
	}
	if t := a.env(envToken); t != "" {
		return "", "", t
	}
	return a.env(envUsername), a.env(envPassword), ""
}

func (a *app) close() {
	if a.conn != nil {
		a.conn.Close()
	}
}
