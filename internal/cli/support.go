package cli

import (
	"context"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v3"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/oauth"
)

// supportCmd manages the support staff who sign in to /support to review
// apps.
func supportCmd(stdout, stderr io.Writer) *ucli.Command {
	return &ucli.Command{
		Name: "support", Usage: "manage support staff (they review apps at /support)",
		Commands: []*ucli.Command{{
			Name: "create", Usage: "create a support account",
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "email", Usage: "sign-in e-mail", Required: true},
				&ucli.StringFlag{Name: "password", Usage: "password (10 characters or more)", Required: true},
			},
			Action: func(ctx context.Context, cmd *ucli.Command) error {
				return withApp(ctx, cmd, stderr, func(a *app.App) error {
					login, err := a.OAuth.CreateSupport(ctx, oauth.NewAccount{Email: cmd.String("email"), Password: cmd.String("password")})
					if err != nil {
						return err
					}
					return print(cmd, stdout, map[string]string{"support_id": login.ID, "email": cmd.String("email")},
						fmt.Sprintf("support account %s created; sign in at /support", login.ID))
				})
			},
		}},
	}
}
