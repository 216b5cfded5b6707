package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/loyalty/loyalty/internal/oauth"
)

// supportCmd manages the support staff who sign in to /support to review
// apps.
func supportCmd(stdout io.Writer) *ucli.Command {
	return &ucli.Command{
		Name: "support", Usage: "manage support staff (they review apps at /support)",
		Commands: []*ucli.Command{
			{
				Name: "create", Usage: "create a support account",
				Flags: []ucli.Flag{
					required("email", "sign-in e-mail"),
					required("password", "password (10 characters or more)"),
				},
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					login, err := s.app.OAuth.CreateSupport(ctx, oauth.NewAccount{Email: s.cmd.String("email"), Password: s.cmd.String("password")})
					if err != nil {
						return err
					}
					return s.print(map[string]any{"support_id": login.ID, "email": s.cmd.String("email")},
						fmt.Sprintf("support account %s created; sign in at /support", login.ID))
				}),
			},
			{
				Name: "list", Usage: "list the support accounts",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					all, err := s.app.OAuth.SupportAccounts(ctx)
					if err != nil {
						return err
					}
					return printList(s, "support", "ID\tE-MAIL\tCREATED", all,
						func(a oauth.SupportAccount) map[string]any {
							return map[string]any{"support_id": a.ID, "email": a.Email,
								"locked_until": timeJSON(a.LockedUntil), "created_at": timeJSON(a.CreatedAt)}
						},
						func(a oauth.SupportAccount) []string {
							return []string{a.ID, a.Email, a.CreatedAt.UTC().Format(time.RFC3339)}
						})
				}),
			},
			{
				Name: "delete", Usage: "delete a support account and end its sessions", ArgsUsage: "SUPPORT_ID|EMAIL",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					a, err := s.app.OAuth.DeleteSupport(ctx, s.cmd.Args().First())
					if err != nil {
						return err
					}
					return s.print(map[string]any{"support_id": a.ID, "email": a.Email, "deleted": true},
						"support account "+a.ID+" ("+a.Email+") deleted")
				}),
			},
		},
	}
}
