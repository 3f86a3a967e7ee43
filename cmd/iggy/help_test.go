package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// `iggy --help` lists every top-level command, and every command in the
// tree has an example in its help.
func TestHelpListsEveryCommandWithExamples(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"--help"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("--help exit %d: %s", code, errOut.String())
	}
	a := &app{}
	root := a.rootCommand()
	for _, c := range root.Commands() {
		if !strings.Contains(out.String(), "\n  "+c.Name()+" ") {
			t.Errorf("--help does not list %q:\n%s", c.Name(), out.String())
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, want := range []string{"stream", "topic", "partition", "segments", "message", "consumer-offset",
		"consumer-group", "user", "pat", "options", "snapshot", "session", "ping", "me", "stats", "cluster", "completion"} {
		if !strings.Contains(out.String(), "\n  "+want+" ") {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// The completion scripts come from the command tree.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__start_iggy", "zsh": "#compdef iggy"} {
		var out, errOut bytes.Buffer
		if code := run([]string{"completion", shell}, strings.NewReader(""), &out, &errOut); code != exitOK {
			t.Fatalf("completion %s exit %d: %s", shell, code, errOut.String())
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("completion %s lacks %q", shell, want)
		}
	}
}

// Mistakes in the command line exit 2 before anything is sent, and an
// unreachable server exits 3.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"stream", "create"}, exitUsage},
		{[]string{"--transport", "carrier-pigeon", "ping"}, exitUsage},
		{[]string{"--output", "yaml", "ping"}, exitUsage},
		{[]string{"no-such-command"}, exitUsage},
		{[]string{"message", "poll", "s", "t", "--first", "--last"}, exitUsage},
		{[]string{"--address", "127.0.0.1:1", "--connect-timeout", "1s", "ping"}, exitConnection},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, strings.NewReader(""), &out, &errOut); code != c.want {
			t.Errorf("%q: exit %d, want %d (%s)", c.args, code, c.want, errOut.String())
		}
	}
}

func TestHeaderValues(t *testing.T) {
	hs, err := parseHeaders([]string{"a:string:x", "b:uint16:513", "c:bool:true", "d:int8:-1", "e:raw:AQI=", "f:float64:1.5"})
	if err != nil {
		t.Fatal(err)
	}
	if got := hs["b"].Value; !bytes.Equal(got, []byte{1, 2}) {
		t.Errorf("uint16 513 = %v", got)
	}
	if got := hs["d"].Value; !bytes.Equal(got, []byte{0xff}) {
		t.Errorf("int8 -1 = %v", got)
	}
	for _, bad := range []string{"a:string", "a:nokind:1", "a:uint8:256", "a:bool:maybe", ":string:x", "a:uint128:1"} {
		if _, err := parseHeaders([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
