package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// Exit codes: 0 success; 1 the server refused (an Iggy error code or an
// eviction); 2 the command line is wrong; 3 the server could not be
// reached or the connection failed. A command the REST API has no route
// for exits 2 over --transport http: nothing was done.
const (
	exitOK         = 0
	exitRefused    = 1
	exitUsage      = 2
	exitConnection = 3
)

// usageError is a mistake in the command line: nothing was sent.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// connectionError is a failure to reach the server.
type connectionError struct{ err error }

func (e connectionError) Error() string { return e.err.Error() }
func (e connectionError) Unwrap() error { return e.err }

// iggyCode is the Iggy error code err carries, if any.
func iggyCode(err error) (wire.Code, bool) {
	var refused *client.Error
	if errors.As(err, &refused) {
		return refused.Code, true
	}
	var evicted *client.EvictedError
	if errors.As(err, &evicted) {
		return evicted.Code(), true
	}
	return 0, false
}

func exitCode(err error) int {
	var usage usageError
	var conn connectionError
	switch {
	case errors.As(err, &usage) || errors.Is(err, client.ErrInvalidArgument) || errors.Is(err, errNotOverHTTP) || isCobraUsage(err):
		return exitUsage
	case errors.As(err, &conn) || errors.Is(err, client.ErrClosed):
		return exitConnection
	}
	return exitRefused // an Iggy error code, an eviction, or a local failure (writing a file)
}

// isCobraUsage recognises cobra's own argument and flag errors, which it
// returns as plain errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument", "requires exactly"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// errorView is an error as --output json prints it.
type errorView struct {
	Code    uint32 `json:"code,omitempty"`
	Name    string `json:"name,omitempty"`
	Message string `json:"message"`
}

func (a *app) printError(err error) {
	v := errorView{Message: err.Error()}
	if code, ok := iggyCode(err); ok {
		v.Code, v.Name = uint32(code), code.Name()
		v.Message = sentence(code) + " (" + err.Error() + ")"
	}
	if a.flags.output == outputJSON {
		_ = json.NewEncoder(a.stderr).Encode(map[string]errorView{"error": v})
		return
	}
	if v.Name != "" {
		fmt.Fprintf(a.stderr, "error %d %s: %s\n", v.Code, v.Name, v.Message)
		return
	}
	fmt.Fprintf(a.stderr, "error: %s\n", v.Message)
}

// sentence spells a code's name out: StreamNameAlreadyExists is "Stream
// name already exists.".
func sentence(code wire.Code) string {
	var b strings.Builder
	for i, r := range code.Name() {
		switch {
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		case unicode.IsUpper(r):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('.')
	return b.String()
}
