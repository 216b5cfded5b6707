package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/loyalty/loyalty/internal/app"
)

// adminCmd is support's tools. They work on an existing database only
// (unless --create): run from the wrong directory, or with a mistyped
// --db, they stop rather than start a new, empty service.
func adminCmd(stdout io.Writer) *ucli.Command {
	return &ucli.Command{
		Name:  "admin",
		Usage: "support's tools: businesses, coalitions, apps and support accounts",
		Description: "Every admin command prints the database it used (\"database\" with --json). It refuses a database\n" +
			"that does not exist yet (run loyalty serve or loyalty migrate first) unless --create is given.",
		Flags: []ucli.Flag{
			jsonFlag(),
			&ucli.BoolFlag{Name: "create", Usage: "create the database when it does not exist yet"},
		},
		Commands: []*ucli.Command{businessCmd(stdout), coalitionCmd(stdout), appCmd(stdout), supportCmd(stdout)},
	}
}

// session is one admin command's run on its opened service.
type session struct {
	cmd *ucli.Command
	app *app.App
	out io.Writer
}

// admin returns the action of an admin command: it opens the service on
// an existing database (or any with --create) and runs fn.
func admin(stdout io.Writer, fn func(ctx context.Context, s *session) error) ucli.ActionFunc {
	return func(ctx context.Context, cmd *ucli.Command) error {
		cfg, err := config(cmd, io.Discard)
		if err != nil {
			return err
		}
		cfg.Logger = slog.New(slog.DiscardHandler)
		cfg.NoOutbox = true
		cfg.MustExist = !cmd.Bool("create")
		a, err := app.Open(ctx, cfg)
		if errors.Is(err, app.ErrNoDatabase) {
			return fmt.Errorf("%w: start loyalty serve or run loyalty migrate with the same --db or --data-dir first, "+
				"or pass --create to create it here", err)
		}
		if err != nil {
			return err
		}
		defer a.Close()
		return describe(fn(ctx, &session{cmd: cmd, app: a, out: stdout}))
	}
}

// print writes one result: the JSON object v with "database" added, or
// the database's line and the human text.
func (s *session) print(v map[string]any, human string) error {
	if wantsJSON(s.cmd) {
		v["database"] = s.app.Database()
		return writeJSON(s.out, v)
	}
	_, err := fmt.Fprintf(s.out, "database: %s\n%s\n", s.app.Database(), strings.TrimRight(human, "\n"))
	return err
}

// printList prints items as a JSON array under key, or as a table under
// header.
func printList[T any](s *session, key, header string, items []T, asJSON func(T) map[string]any, asRow func(T) []string) error {
	list := []map[string]any{}
	var rows [][]string
	for _, it := range items {
		list = append(list, asJSON(it))
		rows = append(rows, asRow(it))
	}
	return s.print(map[string]any{key: list}, table(header, rows))
}

// table renders rows under a header, in aligned columns.
func table(header string, rows [][]string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, header)
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	w.Flush()
	if len(rows) == 0 {
		b.WriteString("(none)\n")
	}
	return b.String()
}

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// timeJSON is a time as JSON shows it: RFC 3339 in UTC, or null when zero.
func timeJSON(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

// orDash shows an empty value as "-" in tables.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
