package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
)

// sessionFileBytesMax bounds the session file read back.
const sessionFileBytesMax = 64 << 10

// savedSession is a login kept between commands, as Iggy's CLI keeps one:
// a personal access token the CLI created, used by later commands that
// are given no credentials. The file has 0600 rights.
type savedSession struct {
	Address   string `json:"address"`
	Transport string `json:"transport"`
	TokenName string `json:"token_name"`
	Token     string `json:"token"`
	CreatedAt string `json:"created_at"`
}

func (a *app) sessionPath() string {
	if a.flags.sessionFile != "" {
		return a.flags.sessionFile
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".iggy-session.json"
	}
	return filepath.Join(home, ".iggy", "session.json")
}

// loadSession reads the saved session; found is false when there is none.
func loadSession(path string) (savedSession, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return savedSession{}, false, nil
	}
	if err != nil {
		return savedSession{}, false, fmt.Errorf("session file: %w", err)
	}
	defer f.Close()
	var s savedSession
	if err := json.NewDecoder(io.LimitReader(f, sessionFileBytesMax)).Decode(&s); err != nil || s.Token == "" {
		return savedSession{}, false, usageErrorf("session file %s is damaged (%v); remove it or run `iggy session login`", path, err)
	}
	return s, true, nil
}

// serverOfSession points a command given no server and no credentials at
// the server of the saved session, whose token it will use.
func (a *app) serverOfSession(serverGiven bool) error {
	if u, _, t := a.credentials(); serverGiven || u != "" || t != "" {
		return nil
	}
	s, found, err := loadSession(a.sessionPath())
	if err != nil || !found {
		return nil // a command that needs the session reports what is wrong with it
	}
	a.flags.address, a.flags.transport = s.Address, s.Transport
	return a.flags.check()
}

func saveSession(path string, s savedSession) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("session directory: %w", err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("session file: %w", err)
	}
	return os.Rename(tmp, path)
}

func (a *app) sessionCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "session", Aliases: []string{"sess"}, Short: "Log in once and keep the session for later commands",
		Long: "`iggy session login` signs in with the given credentials, creates a personal access token and\n" +
			"saves it (with 0600 rights) for later commands run without credentials; `iggy session logout`\n" +
			"deletes the token on the server and the file.",
		Example: "  iggy -u iggy -p iggy session login --expiry 1h\n  iggy stream list\n  iggy session logout"}
	var expiry string
	login := &cobra.Command{
		Use: "login", Short: "Sign in and save a session token", Args: cobra.NoArgs,
		Example: "  iggy -u iggy -p iggy session login\n  iggy -u iggy -p iggy session login --expiry never",
		RunE: func(*cobra.Command, []string) error {
			if u, _, t := a.credentials(); u == "" && t == "" {
				return usageErrorf("session login needs credentials: --username/--password or --token, or the IGGY_ variables")
			}
			e, err := patExpiry(expiry)
			if err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			now := time.Now().UTC()
			name := "iggy-cli-" + now.Format("20060102T150405.000000")
			token, err := c.CreatePersonalAccessToken(name, e)
			if err != nil {
				return err
			}
			s := savedSession{Address: a.addr(), Transport: a.flags.transport, TokenName: name, Token: token, CreatedAt: now.Format(time.RFC3339)}
			if err := saveSession(a.sessionPath(), s); err != nil {
				return err
			}
			return a.done("session saved to "+a.sessionPath(), map[string]any{"path": a.sessionPath(), "token_name": name})
		},
	}
	login.Flags().StringVar(&expiry, "expiry", "15m", "session lifetime (15m, 8h) or never")
	cmd.AddCommand(login, &cobra.Command{
		Use: "logout", Short: "Delete the session's token and file", Args: cobra.NoArgs, Example: "  iggy session logout",
		RunE: func(*cobra.Command, []string) error {
			s, found, err := loadSession(a.sessionPath())
			if err != nil || !found {
				return errors.Join(err, usageErrorf("no saved session at %s", a.sessionPath()))
			}
			if c, err := a.connect(); err == nil {
				if err := c.DeletePersonalAccessToken(s.TokenName); err != nil {
					return err
				}
			}
			if err := os.Remove(a.sessionPath()); err != nil {
				return fmt.Errorf("session file: %w", err)
			}
			return a.done("session ended", nil)
		},
	}, &cobra.Command{
		Use: "status", Short: "Show the saved session (the server is not asked)", Args: cobra.NoArgs, Example: "  iggy session status",
		RunE: func(*cobra.Command, []string) error {
			s, found, err := loadSession(a.sessionPath())
			if err != nil {
				return err
			}
			v := map[string]any{"active": found, "path": a.sessionPath()}
			t := keyValues("active", found, "path", a.sessionPath())
			if found {
				v["address"], v["transport"], v["token_name"], v["created_at"] = s.Address, s.Transport, s.TokenName, s.CreatedAt
				t = keyValues("active", true, "path", a.sessionPath(), "address", s.Address, "transport", s.Transport,
					"token name", s.TokenName, "created", s.CreatedAt)
			}
			return a.show(v, t)
		},
	})
	return cmd
}
