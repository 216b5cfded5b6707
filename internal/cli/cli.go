// Package cli is the loyalty command line: serve, migrate, version and
// support's admin commands.
//
// Exit codes: 0 when the command did what it was asked, 1 when it failed
// (the database is unreachable or missing, the object does not exist, the
// change is refused by what the database holds, such as an owner e-mail
// that exists), 2 for a usage error (an unknown command or flag, a missing
// or malformed flag value, a stray argument). Results go to stdout (one
// JSON object with --json, before or after the command, where a command
// offers it), messages and errors to stderr.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// Exit codes of the loyalty command.
const (
	ExitOK    = 0 // done
	ExitError = 1 // the command failed
	ExitUsage = 2 // the command line is wrong
)

// Main runs the command line in args, prints an error on stderr and
// returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := Run(ctx, args, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "loyalty:", err)
	}
	return ExitCode(err)
}

// Run runs the command line in args, writing results to stdout and
// messages to stderr.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return root(stdout, stderr, program(args)).Run(ctx, args)
}

// program is how the person ran this binary, for the commands it
// suggests: as typed (./loyalty), or go run ./cmd/loyalty for a binary
// that go run built in a temporary directory.
func program(args []string) string {
	switch {
	case len(args) == 0 || args[0] == "":
		return "loyalty"
	case strings.Contains(filepath.ToSlash(args[0]), "/go-build"):
		return "go run ./cmd/loyalty"
	}
	return args[0]
}

// ExitCode is the exit code for Run's error.
func ExitCode(err error) int {
	var usage *usageError
	var exit ucli.ExitCoder // the library's own refusals, such as an unknown help topic
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &usage), errors.As(err, &exit):
		return ExitUsage
	}
	return ExitError
}

// usageError is a wrong command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func root(stdout, stderr io.Writer, program string) *ucli.Command {
	cmd := &ucli.Command{
		Name:        "loyalty",
		Usage:       "an open-source loyalty and rewards service",
		Description: "Exit codes: 0 done, 1 failed, 2 usage error.",
		Writer:      stdout,
		ErrWriter:   stderr,
		HideVersion: true, // --version is ours: the same text as the version command
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "db", Usage: "database: postgres://USER:PASSWORD@HOST/DATABASE, or a SQLite file ending in .db, .sqlite or .sqlite3 (or sqlite:PATH) (default <data-dir>/loyalty.db)", Sources: ucli.EnvVars("LOYALTY_DB")},
			&ucli.StringFlag{Name: "data-dir", Value: "data", Usage: "directory for the SQLite database, outbox and images", Sources: ucli.EnvVars("LOYALTY_DATA_DIR")},
			&ucli.BoolFlag{Name: "version", Usage: "print the version and build information", Local: true},
			// --json is also each command's own flag (so that its --help
			// lists it); here it is accepted before the command, as --db
			// is, by scripts that put the global flags first.
			&ucli.BoolFlag{Name: "json", Usage: "print the result as one JSON object (commands that have a result)", Local: true},
		},
		Commands: []*ucli.Command{serveCmd(stderr, program), migrateCmd(stdout, stderr), adminCmd(stdout), versionCmd(stdout)},
		Action: func(_ context.Context, cmd *ucli.Command) error {
			return printVersion(cmd, stdout) // only reached with --version: checkArgs refuses the rest
		},
		// The library would otherwise call os.Exit for some errors.
		ExitErrHandler: func(context.Context, *ucli.Command, error) {},
	}
	prepare(cmd)
	return cmd
}

// prepare makes every usage error of cmd and its subcommands a plain
// usageError for Main to print on stderr (by default the library prints
// the help text on stdout, which --json reserves for the result), and
// checks every command's arguments.
func prepare(cmd *ucli.Command) {
	cmd.OnUsageError = func(_ context.Context, c *ucli.Command, err error, _ bool) error {
		return usagef("%v (see %s --help)", err, c.FullName())
	}
	cmd.ArgValidator = checkArgs
	for _, sub := range cmd.Commands {
		prepare(sub)
	}
}

// checkArgs refuses an unknown or missing command, stray arguments and
// missing required flags. A command with ArgsUsage takes exactly one
// argument; any other takes none.
func checkArgs(_ context.Context, cmd *ucli.Command) error {
	if cmd.Name == "help" {
		return nil
	}
	args := cmd.Args().Slice()
	var subs []string
	for _, c := range cmd.Commands {
		if c.Name != "help" {
			subs = append(subs, c.Name)
		}
	}
	switch {
	case len(subs) > 0 && len(args) > 0:
		return usagef("unknown command %q for %s (commands: %s)", args[0], cmd.FullName(), strings.Join(subs, ", "))
	case len(subs) > 0 && cmd.Root() == cmd && cmd.Bool("version"):
		return nil
	case len(subs) > 0:
		return usagef("%s needs a command: %s (see %s --help)", cmd.FullName(), strings.Join(subs, ", "), cmd.FullName())
	case cmd.ArgsUsage == "" && len(args) > 0:
		return usagef("%s takes no arguments, got %q (see %s --help)", cmd.FullName(), strings.Join(args, " "), cmd.FullName())
	case cmd.ArgsUsage != "" && len(args) != 1:
		return usagef("%s takes one argument, %s (see %s --help)", cmd.FullName(), cmd.ArgsUsage, cmd.FullName())
	case cmd != cmd.Root() && cmd.Root().Bool("json") && !offersJSON(cmd):
		return usagef("%s has no result to print as JSON: --json is not one of its flags (see %s --help)", cmd.FullName(), cmd.FullName())
	}
	var missing []string
	for _, f := range cmd.Flags {
		if r, ok := f.(ucli.RequiredFlag); ok && r.IsRequired() && !cmd.IsSet(f.Names()[0]) {
			missing = append(missing, "--"+f.Names()[0])
		}
	}
	if len(missing) > 0 {
		return usagef("missing %s (see %s --help)", strings.Join(missing, ", "), cmd.FullName())
	}
	return nil
}

// required is a string flag the command cannot run without; --help marks it.
func required(name, usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: name, Usage: usage + " (required)", Required: true}
}

// jsonFlag offers --json on a command whose result is data.
func jsonFlag() *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: "json", Usage: "print the result as one JSON object"}
}

// offersJSON reports whether cmd or one of its parents below the root
// offers --json.
func offersJSON(cmd *ucli.Command) bool {
	for _, c := range cmd.Lineage() {
		if c == cmd.Root() {
			break
		}
		for _, f := range c.Flags {
			if slices.Contains(f.Names(), "json") {
				return true
			}
		}
	}
	return false
}

// wantsJSON reports whether --json was given, after the command (its own
// flag, or its parent's) or before it (the root's).
func wantsJSON(cmd *ucli.Command) bool {
	return cmd.Bool("json") || cmd.Root().Bool("json")
}

// config reads the shared flags; a database setting Open would refuse is
// a usage error.
func config(cmd *ucli.Command, stderr io.Writer) (app.Config, error) {
	cfg := app.Config{
		DB:      cmd.String("db"),
		DataDir: cmd.String("data-dir"),
		Logger:  slog.New(slog.NewJSONHandler(stderr, nil)),
	}
	if _, err := sqlstore.ParseDSN(cfg.DSN()); err != nil {
		return cfg, usagef("--db: %v", err)
	}
	return cfg, nil
}

func migrateCmd(stdout, stderr io.Writer) *ucli.Command {
	return &ucli.Command{
		Name:  "migrate",
		Usage: "create the database or apply pending migrations, then exit",
		Flags: []ucli.Flag{jsonFlag(), &ucli.StringFlag{Name: "db-listen", Usage: "PostgreSQL: a direct postgres:// URL " +
			"(several hosts allowed; the writable one is used) the migrations run on, needed when --db goes through a pooler in " +
			"transaction mode such as pgbouncer: they need a session (default: --db)", Sources: ucli.EnvVars("LOYALTY_DB_LISTEN")},
			&ucli.BoolFlag{
				Name: "resync-summaries",
				Usage: "then write every customer's summary of activity and marketing consent again from the ledger and the consents: " +
					"once a rolling upgrade from a release before migration 00054 is over (docs/operations.md); instances may keep serving",
			},
			&ucli.BoolFlag{
				Name: "analyze",
				Usage: "then gather the query planner's statistics of every table, on SQLite without the sample statistics that " +
					"slow the ledger's writes (docs/operations.md); instances may keep serving",
			}},
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			cfg, err := config(cmd, stderr)
			if err != nil {
				return err
			}
			cfg.DBListen = cmd.String("db-listen")
			if cfg.DBListen != "" {
				l, err := sqlstore.ParseDSN(cfg.DBListen)
				if d, _ := sqlstore.ParseDSN(cfg.DSN()); err != nil || l.Dialect != sqlstore.Postgres || d.Dialect != sqlstore.Postgres {
					return usagef("--db-listen must be a postgres:// URL, with a PostgreSQL --db, got %q", sqlstore.RedactURL(cfg.DBListen))
				}
			}
			a, err := app.Open(ctx, cfg)
			if err != nil {
				return err
			}
			defer a.Close()
			out := map[string]any{"status": "migrated", "db": a.DB.Dialect(), "database": a.Database()}
			done := "database migrated"
			if cmd.Bool("resync-summaries") {
				if err := a.DB.ResyncCustomerSummaries(ctx); err != nil {
					return err
				}
				out["summaries"], done = "resynced", done+", customer summaries resynced"
			}
			if cmd.Bool("analyze") {
				if err := a.DB.Analyze(ctx); err != nil {
					return err
				}
				out["statistics"], done = "gathered", done+", planner statistics gathered"
			}
			return emit(cmd, stdout, out, done+": "+a.Database())
		},
	}
}

// emit writes v as one JSON object with --json, or the human text.
func emit(cmd *ucli.Command, stdout io.Writer, v map[string]any, human string) error {
	if wantsJSON(cmd) {
		return writeJSON(stdout, v)
	}
	_, err := fmt.Fprintln(stdout, strings.TrimRight(human, "\n"))
	return err
}

// describe turns a validation error into an error naming the flags (a
// field owner_email is the flag --owner-email): a usage error when the
// values are malformed, a plain failure when they are well formed but
// what the database holds refuses them (an owner e-mail that exists).
func describe(err error) error {
	var e *loyalty.Error
	if !errors.As(err, &e) {
		return err
	}
	if len(e.Fields) == 0 {
		return errors.New(e.Message) // the code is for programs; the message is for people
	}
	fields := make([]string, 0, len(e.Fields))
	for f := range e.Fields {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	msg := "invalid arguments:"
	if e.Stored {
		msg = "refused:"
	}
	for _, f := range fields {
		for _, m := range e.Fields[f] {
			msg += fmt.Sprintf("\n  --%s: %s", strings.ReplaceAll(f, "_", "-"), m)
		}
	}
	if e.Stored {
		return errors.New(msg)
	}
	return &usageError{msg: msg}
}
