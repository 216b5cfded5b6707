package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/loyalty/loyalty/internal/oauth"
)

// appCmd manages registered apps through the same oauth.Server methods
// as the support portal.
func appCmd(stdout io.Writer) *ucli.Command {
	status := func(name, usage string, set func(*oauth.Server, context.Context, string) error) *ucli.Command {
		return &ucli.Command{
			Name: name, Usage: usage, ArgsUsage: "CLIENT_ID",
			Action: admin(stdout, func(ctx context.Context, s *session) error {
				id := s.cmd.Args().First()
				if err := set(s.app.OAuth, ctx, id); err != nil {
					return err
				}
				a, err := s.app.OAuth.App(ctx, id)
				if err != nil {
					return err
				}
				return s.print(map[string]any{"client_id": id, "status": a.Status}, "app "+id+" is "+a.Status)
			}),
		}
	}
	return &ucli.Command{
		Name: "app", Usage: "manage registered apps",
		Commands: []*ucli.Command{
			{
				Name: "create", Usage: "register an app (its client secret is shown only now)",
				Flags: []ucli.Flag{
					required("name", "app name shown to users"),
					required("api", "business or user"),
					required("grant", "password or authorization_code"),
					&ucli.StringFlag{Name: "redirect-uri", Usage: "authorization callback URL (required with --grant authorization_code)"},
					&ucli.StringFlag{Name: "description", Usage: "app description"},
					&ucli.BoolFlag{Name: "approve", Usage: "approve the app at once"},
				},
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					c := s.cmd
					out, err := s.app.OAuth.CreateApp(ctx, oauth.NewApp{
						Name: c.String("name"), API: c.String("api"), GrantType: c.String("grant"),
						RedirectURI: c.String("redirect-uri"), Description: c.String("description"), Approve: c.Bool("approve"),
					})
					if err != nil {
						return err
					}
					return s.print(map[string]any{"client_id": out.ClientID, "client_secret": out.ClientSecret, "approved": out.Approved},
						fmt.Sprintf("client id: %s\nclient secret: %s\napproved: %t", out.ClientID, out.ClientSecret, out.Approved))
				}),
			},
			{
				Name: "list", Usage: "list every app, pending ones first",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					all, err := s.app.OAuth.ListApps(ctx)
					if err != nil {
						return err
					}
					return printList(s, "apps", "CLIENT ID\tNAME\tAPI\tGRANT\tSTATUS\tDEVELOPER", all, appJSON,
						func(a oauth.ListedApp) []string {
							return []string{a.ClientID, a.Name, a.API, a.GrantType, a.Status, orDash(a.DeveloperEmail)}
						})
				}),
			},
			{
				Name: "show", Usage: "show an app", ArgsUsage: "CLIENT_ID",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					a, err := s.app.OAuth.App(ctx, s.cmd.Args().First())
					if err != nil {
						return err
					}
					return s.print(appJSON(a), table("FIELD\tVALUE", [][]string{
						{"client id", a.ClientID}, {"name", a.Name}, {"description", orDash(a.Description)}, {"api", a.API},
						{"grant", a.GrantType}, {"redirect uri", orDash(a.RedirectURI)}, {"status", a.Status},
						{"developer", orDash(a.DeveloperEmail)}, {"created", a.CreatedAt.UTC().Format(time.RFC3339)},
					}))
				}),
			},
			{
				Name: "approve", Usage: "approve an app: it may obtain tokens", ArgsUsage: "CLIENT_ID",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					id := s.cmd.Args().First()
					if err := s.app.OAuth.SetAppStatus(ctx, id, oauth.AppApproved); err != nil {
						return err
					}
					return s.print(map[string]any{"client_id": id, "approved": true}, "app "+id+" approved")
				}),
			},
			status("suspend", "suspend an app: its tokens stop working at once and it gets no new ones",
				func(o *oauth.Server, ctx context.Context, id string) error {
					return o.SetAppStatus(ctx, id, oauth.AppSuspended)
				}),
			status("unsuspend", "let a suspended app work again", (*oauth.Server).Unsuspend),
			{
				Name: "delete", Usage: "delete a suspended or pending app with its tokens", ArgsUsage: "CLIENT_ID",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					id := s.cmd.Args().First()
					if err := s.app.OAuth.DeleteApp(ctx, id); err != nil {
						return err
					}
					return s.print(map[string]any{"client_id": id, "deleted": true}, "app "+id+" deleted")
				}),
			},
		},
	}
}

// appJSON is an app in --json output.
func appJSON(a oauth.ListedApp) map[string]any {
	return map[string]any{"client_id": a.ClientID, "name": a.Name, "description": a.Description, "api": a.API,
		"grant": a.GrantType, "redirect_uri": a.RedirectURI, "status": a.Status, "developer_email": a.DeveloperEmail,
		"created_at": timeJSON(a.CreatedAt)}
}
