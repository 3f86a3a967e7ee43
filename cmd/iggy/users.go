package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/iggygo/iggy/wire"
)

type userView struct {
	ID          uint32   `json:"id"`
	Username    string   `json:"username"`
	Status      string   `json:"status"`
	CreatedAt   string   `json:"created_at"`
	Permissions []string `json:"global_permissions,omitempty"`
}

var userHeaders = []string{"ID", "USERNAME", "STATUS", "CREATED", "GLOBAL PERMISSIONS"}

func viewUser(u wire.UserInfo, p *wire.Permissions, t *table) userView {
	v := userView{ID: u.ID, Username: u.Username, Status: wire.UserStatusWord(u.Status), CreatedAt: timeText(u.CreatedAt), Permissions: grantedGlobal(p)}
	if p == nil { // a list carries no permissions
		t.add(v.ID, v.Username, v.Status, v.CreatedAt)
		return v
	}
	t.add(v.ID, v.Username, v.Status, v.CreatedAt, strings.Join(v.Permissions, ","))
	return v
}

func (a *app) userCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "user", Aliases: []string{"u"}, Short: "Create, list, show, update and delete users; passwords and permissions",
		Example: "  iggy user create alice s3cret --permissions read_streams,poll_messages\n  iggy user list"}
	var status string
	var perms []string
	create := &cobra.Command{
		Use: "create USERNAME PASSWORD", Short: "Create a user", Args: cobra.ExactArgs(2),
		Example: "  iggy user create alice s3cret\n  iggy user create bot t0ken-pass --status inactive --permissions send_messages",
		RunE: a.withClient(func(c api, args []string) error {
			st, err := userStatus(status)
			if err != nil {
				return err
			}
			p, err := globalPermissions(perms)
			if err != nil {
				return err
			}
			d, err := c.CreateUser(args[0], args[1], st, p)
			if err != nil {
				return err
			}
			t := table{headers: userHeaders}
			return a.show(viewUser(d.UserInfo, d.Permissions, &t), t)
		}),
	}
	create.Flags().StringVar(&status, "status", "active", "active or inactive")
	create.Flags().StringSliceVar(&perms, "permissions", nil, "global permissions, comma-separated: "+strings.Join(permissionNames, ","))
	var setPerms []string
	permissions := &cobra.Command{
		Use: "permissions USER", Short: "Replace a user's global permissions", Args: cobra.ExactArgs(1),
		Example: "  iggy user permissions alice --permissions read_streams,read_topics,poll_messages\n  iggy user permissions alice   # none",
		RunE: a.withClient(func(c api, args []string) error {
			p, err := globalPermissions(setPerms)
			if err != nil {
				return err
			}
			if err := c.UpdatePermissions(id(args[0]), p); err != nil {
				return err
			}
			return a.done("permissions updated", map[string]any{"global_permissions": grantedGlobal(p)})
		}),
	}
	permissions.Flags().StringSliceVar(&setPerms, "permissions", nil, "global permissions, comma-separated (none: no permissions)")
	var current string
	password := &cobra.Command{
		Use: "password USER NEW_PASSWORD", Short: "Change a user's password", Args: cobra.ExactArgs(2),
		Example: "  iggy user password alice n3w-pass --current s3cret",
		RunE: a.withClient(func(c api, args []string) error {
			if err := c.ChangePassword(id(args[0]), current, args[1]); err != nil {
				return err
			}
			return a.done("password changed", nil)
		}),
	}
	password.Flags().StringVar(&current, "current", "", "the user's current password")
	cmd.AddCommand(create, &cobra.Command{
		Use: "list", Short: "List users", Args: cobra.NoArgs, Example: "  iggy user list",
		RunE: a.withClient(func(c api, _ []string) error {
			us, err := c.GetUsers()
			if err != nil {
				return err
			}
			views, t := viewList(us, userHeaders[:4], func(u wire.UserInfo, t *table) userView { return viewUser(u, nil, t) })
			return a.show(views, t)
		}),
	}, &cobra.Command{
		Use: "get USER", Short: "Show a user and its global permissions", Args: cobra.ExactArgs(1), Example: "  iggy user get alice",
		RunE: a.withClient(func(c api, args []string) error {
			d, found, err := c.GetUser(id(args[0]))
			if err := notFound(found, err, "user", args[0]); err != nil {
				return err
			}
			t := table{headers: userHeaders}
			return a.show(viewUser(d.UserInfo, d.Permissions, &t), t)
		}),
	}, a.updateCommand("user", "USER", "  iggy user update alice --set status=inactive\n  iggy user update alice --set username=alice2", 1,
		func(args []string) wire.UpdateResourceRequest {
			return wire.UpdateResourceRequest{Scope: wire.ScopeUser, User: id(args[0])}
		}), a.deleteCommand("user", "USER", "  iggy user delete alice", 1, func(c api, args []string) error {
		return c.DeleteUser(id(args[0]))
	}), password, permissions)
	return cmd
}

// patExpiry reads --expiry: a duration, "never", or "" for the server's default.
func patExpiry(s string) (uint64, error) {
	switch s {
	case "":
		return wire.PATExpiryServerDefault, nil
	case "never":
		return wire.PATExpiryNever, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, usageErrorf("--expiry %q: want a duration such as 15m or 24h, or never", s)
	}
	return uint64(d.Microseconds()), nil
}

func (a *app) patCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "pat", Short: "Create, list and delete your personal access tokens",
		Example: "  iggy pat create ci --expiry 24h\n  iggy pat list"}
	var expiry string
	create := &cobra.Command{
		Use: "create NAME", Short: "Create a token and print it (it is shown only once)", Args: cobra.ExactArgs(1),
		Example: "  iggy pat create ci --expiry 24h\n  iggy -o json pat create deploy --expiry never",
		RunE: a.withClient(func(c api, args []string) error {
			e, err := patExpiry(expiry)
			if err != nil {
				return err
			}
			token, err := c.CreatePersonalAccessToken(args[0], e)
			if err != nil {
				return err
			}
			return a.show(map[string]string{"name": args[0], "token": token}, keyValues("name", args[0], "token", token))
		}),
	}
	create.Flags().StringVar(&expiry, "expiry", "", "lifetime (15m, 24h) or never (default: the server's)")
	cmd.AddCommand(create, &cobra.Command{
		Use: "list", Short: "List your tokens", Args: cobra.NoArgs, Example: "  iggy pat list",
		RunE: a.withClient(func(c api, _ []string) error {
			ps, err := c.GetPersonalAccessTokens()
			if err != nil {
				return err
			}
			type patView struct {
				Name     string `json:"name"`
				ExpiryAt string `json:"expiry_at"`
			}
			views := []patView{}
			t := table{headers: []string{"NAME", "EXPIRES"}}
			for _, p := range ps {
				exp := "never"
				if p.ExpiryAt != wire.PATExpiryAtNever {
					exp = timeText(p.ExpiryAt)
				}
				views = append(views, patView{p.Name, exp})
				t.add(p.Name, exp)
			}
			return a.show(views, t)
		}),
	}, a.deleteCommand("token", "NAME", "  iggy pat delete ci", 1, func(c api, args []string) error {
		return c.DeletePersonalAccessToken(args[0])
	}))
	return cmd
}
