// Package e2e holds end-to-end tests that build and run the real
// cmd/iggy-server binary and talk to it with the client package over TCP.
// Everything lives in _test.go files; this file only names the package.
package e2e
