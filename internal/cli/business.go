package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func businessCmd(stdout io.Writer) *ucli.Command {
	return &ucli.Command{
		Name: "business", Usage: "manage businesses, their Application Keys and owners",
		Commands: []*ucli.Command{
			{
				Name: "create", Usage: "create a business with its owner and Application Key",
				Flags: []ucli.Flag{
					required("name", "business name"),
					required("loyalty-type", "per_spend or per_visit"),
					required("owner-email", "owner's sign-in e-mail"),
					required("owner-password", "owner's password (8 characters or more)"),
					&ucli.StringFlag{Name: "country", Value: "US", Usage: "ISO country for reading local phone numbers and writing amounts"},
					&ucli.StringFlag{Name: "currency", Usage: "ISO 4217 currency of its amounts (default: the country's)"},
					&ucli.StringFlag{Name: "coalition", Usage: "id of the coalition the business joins"},
					&ucli.BoolFlag{Name: "sandbox", Usage: "a business for testing, whose clock POST /sandbox/clock moves forward"},
				},
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					c := s.cmd
					out, err := s.app.Admin.CreateBusiness(ctx, loyalty.NewBusiness{
						Name: c.String("name"), LoyaltyType: c.String("loyalty-type"), Country: c.String("country"),
						Currency: c.String("currency"), OwnerEmail: c.String("owner-email"), OwnerPassword: c.String("owner-password"), CoalitionID: c.String("coalition"),
						Sandbox: c.Bool("sandbox"),
					})
					if err != nil {
						return err
					}
					printed := map[string]any{"business_id": out.BusinessID, "application_key": out.ApplicationKey, "owner_id": out.OwnerID}
					if c.Bool("sandbox") {
						printed["sandbox"] = true
					}
					return s.print(printed,
						fmt.Sprintf("business %s created\napplication key: %s\nowner: %s", out.BusinessID, out.ApplicationKey, out.OwnerID))
				}),
			},
			{
				Name: "list", Usage: "list every business with its owner and Application Key",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					all, err := s.app.Admin.Businesses(ctx)
					if err != nil {
						return err
					}
					return printList(s, "businesses", "ID\tNAME\tTYPE\tOWNER\tAPPLICATION KEY", all, businessJSON,
						func(b loyalty.BusinessSummary) []string {
							return []string{b.ID, b.Name, b.LoyaltyType, orDash(b.OwnerEmail), b.ApplicationKey}
						})
				}),
			},
			{
				Name: "show", Usage: "show a business, found by its id or its owner's e-mail", ArgsUsage: "BUSINESS_ID|OWNER_EMAIL",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					b, err := s.app.Admin.Business(ctx, s.cmd.Args().First())
					if err != nil {
						return err
					}
					return s.print(businessJSON(b), businessText(b))
				}),
			},
			{
				Name: "rotate-key", Usage: "give a business a new Application Key; the old one stops working at once", ArgsUsage: "BUSINESS_ID",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					id := s.cmd.Args().First()
					key, err := s.app.Admin.RotateKey(ctx, id)
					if err != nil {
						return err
					}
					return s.print(map[string]any{"business_id": id, "application_key": key},
						fmt.Sprintf("business %s has a new application key: %s", id, key))
				}),
			},
			{
				Name: "owner", Usage: "manage a business's owner account",
				Commands: []*ucli.Command{{
					Name: "reset-password", ArgsUsage: "BUSINESS_ID|OWNER_EMAIL",
					Usage: "give the owner a new password (e-mailed through the outbox unless --password is given), " +
						"lift any sign-in lock and end the owner's portal sessions",
					Flags: []ucli.Flag{&ucli.StringFlag{Name: "password", Usage: "set this password (8 characters or more) and send nothing"}},
					Action: admin(stdout, func(ctx context.Context, s *session) error {
						r, err := s.app.Admin.ResetOwnerPassword(ctx, s.cmd.Args().First(), s.cmd.String("password"))
						if err != nil {
							return err
						}
						human := "password of " + r.OwnerEmail + " set; the owner's sessions are ended"
						if r.Emailed {
							human = "a new password for " + r.OwnerEmail + " is queued in the outbox; the owner's sessions are ended"
						}
						return s.print(map[string]any{"business_id": r.BusinessID, "owner_id": r.OwnerID, "owner_email": r.OwnerEmail,
							"emailed": r.Emailed}, human)
					}),
				}},
			},
		},
	}
}

// businessJSON is a business in --json output.
func businessJSON(b loyalty.BusinessSummary) map[string]any {
	return map[string]any{"business_id": b.ID, "name": b.Name, "loyalty_type": b.LoyaltyType, "country": b.Country,
		"coalition_id": b.CoalitionID, "owner_id": b.OwnerID, "owner_email": b.OwnerEmail,
		"owner_locked_until": timeJSON(b.OwnerLocked), "application_key": b.ApplicationKey, "created_at": timeJSON(b.CreatedAt)}
}

// businessText is a business as business show prints it.
func businessText(b loyalty.BusinessSummary) string {
	locked := "no"
	if b.OwnerLocked.After(time.Now()) {
		locked = "until " + b.OwnerLocked.UTC().Format(time.RFC3339)
	}
	return table("FIELD\tVALUE", [][]string{
		{"id", b.ID}, {"name", b.Name}, {"loyalty type", b.LoyaltyType}, {"country", b.Country},
		{"coalition", orDash(b.CoalitionID)}, {"owner", b.OwnerID + " " + b.OwnerEmail}, {"owner locked", locked},
		{"application key", b.ApplicationKey}, {"created", b.CreatedAt.UTC().Format(time.RFC3339)},
	})
}

func coalitionCmd(stdout io.Writer) *ucli.Command {
	return &ucli.Command{
		Name: "coalition", Usage: "manage coalitions (businesses sharing customers under one Application Key)",
		Commands: []*ucli.Command{
			{
				Name: "create", Usage: "create a coalition with its Application Key",
				Flags: []ucli.Flag{required("name", "coalition name")},
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					out, err := s.app.Admin.CreateCoalition(ctx, s.cmd.String("name"))
					if err != nil {
						return err
					}
					return s.print(map[string]any{"coalition_id": out.CoalitionID, "application_key": out.ApplicationKey},
						fmt.Sprintf("coalition %s created\napplication key: %s", out.CoalitionID, out.ApplicationKey))
				}),
			},
			{
				Name: "list", Usage: "list every coalition with its Application Key and member count",
				Action: admin(stdout, func(ctx context.Context, s *session) error {
					all, err := s.app.Admin.Coalitions(ctx)
					if err != nil {
						return err
					}
					return printList(s, "coalitions", "ID\tNAME\tMEMBERS\tAPPLICATION KEY", all,
						func(c loyalty.CoalitionSummary) map[string]any {
							return map[string]any{"coalition_id": c.ID, "name": c.Name, "application_key": c.ApplicationKey,
								"members": c.Members, "created_at": timeJSON(c.CreatedAt)}
						},
						func(c loyalty.CoalitionSummary) []string {
							return []string{c.ID, c.Name, strconv.Itoa(c.Members), c.ApplicationKey}
						})
				}),
			},
		},
	}
}
