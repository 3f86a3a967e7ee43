// Command iggy-server runs a standalone Iggy server node.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// flags are the command line of iggy-server (config.md section 8).
type flags struct {
	replicaID                  int
	fresh                      bool
	withDefaultRootCredentials bool
	listConfigEnvVars          bool
}

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("iggy-server", flag.ContinueOnError)
	fs.IntVar(&f.replicaID, "replica-id", -1, "this node's replica id in the cluster.nodes roster")
	fs.BoolVar(&f.fresh, "fresh", false, "delete the configured system path before starting (explicit reset)")
	fs.BoolVar(&f.fresh, "f", false, "shorthand for --fresh")
	fs.BoolVar(&f.withDefaultRootCredentials, "with-default-root-credentials", false, "development only: root is iggy/iggy on fresh storage")
	fs.BoolVar(&f.listConfigEnvVars, "list-config-env-vars", false, "print every IGGY_ variable with its TOML path and default, then exit")
	err := fs.Parse(args)
	return f, err
}

func run(args []string) int {
	f, err := parseFlags(args)
	if err != nil {
		return 2
	}
	defer startCPUProfile()()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		close(stop)
	}()
	if err := serve(f, log, stop); err != nil {
		var usage *usageError
		if errors.As(err, &usage) {
			fmt.Fprintln(os.Stderr, "iggy-server:", err)
			return 2
		}
		var fds *fdLimitError
		if errors.As(err, &fds) {
			fmt.Fprintln(os.Stderr, "iggy-server:", err)
			return exitFDLimit
		}
		fmt.Fprintln(os.Stderr, "iggy-server:", err)
		return 1
	}
	return 0
}

// usageError is a refusal caused by how the server was started.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
