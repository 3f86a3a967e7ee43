// Command iggy manages an Iggy server from the command line over the
// project's Go client (client/), or its REST API with --transport http
// (httpAPI): streams, topics, partitions, messages,
// consumer offsets and groups, users and tokens, options, diagnostics.
// Every command prints aligned tables for people, or JSON with
// --output json for scripts; an error prints the Iggy code, its name and a
// sentence, and exits non-zero (exitcodes.go).
package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, env: os.Getenv}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	a.close()
	if err != nil {
		a.printError(err)
		return exitCode(err)
	}
	return exitOK
}

// rootCommand builds the whole command tree.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "iggy",
		Short: "Manage an Iggy server: streams, topics, messages, users and more",
		Long: "iggy talks to an Iggy server over TCP, QUIC or WebSocket with the binary protocol, or over\n" +
			"its REST API with --transport http (default address 127.0.0.1:3000).\n\n" +
			"Credentials come from --username/--password or --token, else from the variables\n" +
			"IGGY_USERNAME/IGGY_PASSWORD or IGGY_TOKEN, else from a session saved by `iggy session login`.",
		Example: "  iggy --username iggy --password iggy stream list\n" +
			"  IGGY_TOKEN=... iggy --transport quic --address 127.0.0.1:8080 me\n" +
			"  iggy --output json topic get orders events",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.flags.check(); err != nil {
				return err
			}
			return a.serverOfSession(cmd.Flags().Changed("address") || cmd.Flags().Changed("transport"))
		},
	}
	a.flags.register(root.PersistentFlags())
	root.AddCommand(
		a.pingCommand(), a.meCommand(), a.statsCommand(), a.clusterCommand(),
		a.streamCommand(), a.topicCommand(), a.partitionCommand(), a.segmentsCommand(),
		a.messageCommand(), a.consumerOffsetCommand(), a.consumerGroupCommand(),
		a.userCommand(), a.patCommand(), a.optionsCommand(), a.snapshotCommand(),
		a.sessionCommand(), completionCommand(root),
	)
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Example = "  iggy help topic create"
		}
	}
	return root
}

// completionCommand prints a shell completion script generated from the
// command tree.
func completionCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh",
		Short: "Print a shell completion script",
		Example: "  source <(iggy completion bash)\n" +
			"  iggy completion zsh > \"${fpath[1]}/_iggy\"",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh"},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(cmd.OutOrStdout(), true)
			case "zsh":
				return root.GenZshCompletion(cmd.OutOrStdout())
			}
			return usageErrorf("completion: shell %q, want bash or zsh", args[0])
		},
	}
}
