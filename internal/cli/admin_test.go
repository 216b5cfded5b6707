package cli_test

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/cli"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// shown is how admin commands show the database dsn.
func shown(t *testing.T, dsn string) string {
	t.Helper()
	d, err := sqlstore.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

func TestAdminNeedsAnExistingDatabase(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		// Twice: the first refusal created nothing (no file, no tables).
		for range 2 {
			r := run(t, "--db", dsn, "admin", "business", "list")
			r.fails(t, cli.ExitError, "no Loyalty database at "+shown(t, dsn), "loyalty migrate", "--create")
		}
		if d, _ := sqlstore.ParseDSN(dsn); d.Dialect == sqlstore.SQLite {
			if ok, _ := d.Exists(); ok {
				t.Errorf("the refused admin command created %s", dsn)
			}
		}
		// The default database in another directory is refused the same way.
		t.Chdir(t.TempDir())
		run(t, "admin", "support", "list").fails(t, cli.ExitError, "no Loyalty database at sqlite:", "data/loyalty.db")

		created := run(t, "--db", dsn, "admin", "--create", "business", "list", "--json").ok(t).obj(t)
		if created["database"] != shown(t, dsn) || len(created["businesses"].([]any)) != 0 {
			t.Errorf("admin --create: %v", created)
		}
		r := run(t, "--db", dsn, "admin", "business", "list").ok(t)
		if want := "database: " + shown(t, dsn) + "\n"; !strings.HasPrefix(r.stdout, want) {
			t.Errorf("human output %q does not start with %q", r.stdout, want)
		}
	})
}

// admin runs an admin command with --json on dsn and returns its object,
// which must name the database.
func admin(t *testing.T, dsn string, args ...string) map[string]any {
	t.Helper()
	out := run(t, append(append([]string{"--db", dsn, "admin"}, args...), "--json")...).ok(t).obj(t)
	if out["database"] != shown(t, dsn) {
		t.Errorf("admin %s: database %v, want %s", strings.Join(args, " "), out["database"], shown(t, dsn))
	}
	return out
}

// fail runs an admin command on dsn that must fail with code.
func fail(t *testing.T, dsn string, code int, want string, args ...string) {
	t.Helper()
	run(t, append([]string{"--db", dsn, "admin"}, args...)...).fails(t, code, want)
}

func TestBusinessCommands(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		run(t, "--db", dsn, "migrate").ok(t)
		co := admin(t, dsn, "coalition", "create", "--name", "Main Street")
		b := admin(t, dsn, "business", "create", "--name", "Corner Cafe", "--loyalty-type", "per_spend",
			"--owner-email", "owner@cafe.example", "--owner-password", "first-password", "--coalition", co["coalition_id"].(string))
		id, key := b["business_id"].(string), b["application_key"].(string)

		list := admin(t, dsn, "business", "list")["businesses"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["business_id"] != id || list[0].(map[string]any)["application_key"] != key {
			t.Fatalf("business list = %v", list)
		}
		shownBiz := admin(t, dsn, "business", "show", "Owner@Cafe.example")
		if shownBiz["business_id"] != id || shownBiz["name"] != "Corner Cafe" || shownBiz["owner_email"] != "owner@cafe.example" ||
			shownBiz["coalition_id"] != co["coalition_id"] || shownBiz["application_key"] != key || shownBiz["owner_locked_until"] != nil {
			t.Errorf("business show by e-mail = %v", shownBiz)
		}
		if again := admin(t, dsn, "business", "show", id); again["business_id"] != id {
			t.Errorf("business show by id = %v", again)
		}
		fail(t, dsn, cli.ExitError, "not found", "business", "show", "nobody@cafe.example")
		fail(t, dsn, cli.ExitError, "not found", "business", "show", "0123456789abcdef0123456789abcdef")

		coalitions := admin(t, dsn, "coalition", "list")["coalitions"].([]any)
		if len(coalitions) != 1 || coalitions[0].(map[string]any)["members"] != float64(1) ||
			coalitions[0].(map[string]any)["application_key"] != co["application_key"] {
			t.Errorf("coalition list = %v", coalitions)
		}

		rotated := admin(t, dsn, "business", "rotate-key", id)
		if rotated["business_id"] != id || rotated["application_key"] == key || len(rotated["application_key"].(string)) < 40 {
			t.Errorf("rotate-key = %v", rotated)
		}
		if now := admin(t, dsn, "business", "show", id)["application_key"]; now != rotated["application_key"] {
			t.Errorf("after rotate-key, show gives key %v, want %v", now, rotated["application_key"])
		}
		fail(t, dsn, cli.ExitError, "not found", "business", "rotate-key", "0123456789abcdef0123456789abcdef")

		fail(t, dsn, cli.ExitUsage, "--password", "business", "owner", "reset-password", id, "--password", "short")
		set := admin(t, dsn, "business", "owner", "reset-password", id, "--password", "second-password")
		if set["emailed"] != false || set["owner_email"] != "owner@cafe.example" || set["business_id"] != id {
			t.Errorf("reset-password --password = %v", set)
		}
		a := open(t, dsn)
		signIn(t, a, "owner@cafe.example", "second-password")
		mailed := admin(t, dsn, "business", "owner", "reset-password", "owner@cafe.example")
		if mailed["emailed"] != true {
			t.Errorf("reset-password without --password = %v", mailed)
		}
		signIn(t, a, "owner@cafe.example", mailedPassword(t, a, "owner@cafe.example"))
		fail(t, dsn, cli.ExitError, "not found", "business", "owner", "reset-password", "nobody@cafe.example")
	})
}

func TestAppCommands(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		run(t, "--db", dsn, "migrate").ok(t)
		created := admin(t, dsn, "app", "create", "--name", "Till Sync", "--api", "business", "--grant", "authorization_code",
			"--redirect-uri", "https://till.example/cb", "--description", "Syncs the till")
		id := created["client_id"].(string)
		status := func(want string) {
			t.Helper()
			got := admin(t, dsn, "app", "show", id)
			if got["status"] != want || got["name"] != "Till Sync" || got["grant"] != "authorization_code" ||
				got["redirect_uri"] != "https://till.example/cb" || got["description"] != "Syncs the till" || got["api"] != "business" {
				t.Errorf("app show = %v, want status %s", got, want)
			}
		}
		status("pending")
		apps := admin(t, dsn, "app", "list")["apps"].([]any)
		if len(apps) != 1 || apps[0].(map[string]any)["client_id"] != id || apps[0].(map[string]any)["status"] != "pending" {
			t.Errorf("app list = %v", apps)
		}
		fail(t, dsn, cli.ExitError, "not suspended", "app", "unsuspend", id) // pending: approve it instead
		admin(t, dsn, "app", "approve", id)
		status("approved")
		fail(t, dsn, cli.ExitError, "suspend it", "app", "delete", id)
		if out := admin(t, dsn, "app", "suspend", id); out["status"] != "suspended" {
			t.Errorf("app suspend = %v", out)
		}
		status("suspended")
		if out := admin(t, dsn, "app", "unsuspend", id); out["status"] != "approved" {
			t.Errorf("app unsuspend = %v", out)
		}
		admin(t, dsn, "app", "suspend", id)
		if out := admin(t, dsn, "app", "delete", id); out["deleted"] != true || out["client_id"] != id {
			t.Errorf("app delete = %v", out)
		}
		for _, cmd := range []string{"show", "approve", "suspend", "unsuspend", "delete"} {
			fail(t, dsn, cli.ExitError, "not found", "app", cmd, id)
		}
		if apps := admin(t, dsn, "app", "list")["apps"].([]any); len(apps) != 0 {
			t.Errorf("app list after delete = %v", apps)
		}
		fail(t, dsn, cli.ExitUsage, "--redirect-uri", "app", "create", "--name", "X", "--api", "business", "--grant", "authorization_code")
		fail(t, dsn, cli.ExitUsage, "--grant", "app", "create", "--name", "X", "--api", "user", "--grant", "authorization_code",
			"--redirect-uri", "https://x.example/cb")
	})
}

func TestSupportCommands(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		run(t, "--db", dsn, "migrate").ok(t)
		ann := admin(t, dsn, "support", "create", "--email", "Ann@Support.example", "--password", "support-pass-1")
		admin(t, dsn, "support", "create", "--email", "bob@support.example", "--password", "support-pass-2")
		fail(t, dsn, cli.ExitUsage, "--password", "support", "create", "--email", "cy@support.example", "--password", "short")
		fail(t, dsn, cli.ExitUsage, "--email", "support", "create", "--email", "not-an-email", "--password", "support-pass-3")

		list := admin(t, dsn, "support", "list")["support"].([]any)
		if len(list) != 2 || list[0].(map[string]any)["email"] != "ann@support.example" || list[0].(map[string]any)["support_id"] != ann["support_id"] {
			t.Fatalf("support list = %v", list)
		}
		gone := admin(t, dsn, "support", "delete", "ann@support.example")
		if gone["support_id"] != ann["support_id"] || gone["deleted"] != true {
			t.Errorf("support delete = %v", gone)
		}
		fail(t, dsn, cli.ExitError, "ann@support.example", "support", "delete", "ann@support.example")
		bob := admin(t, dsn, "support", "list")["support"].([]any)[0].(map[string]any)
		admin(t, dsn, "support", "delete", bob["support_id"].(string))
		if list := admin(t, dsn, "support", "list")["support"].([]any); len(list) != 0 {
			t.Errorf("support list after deleting both = %v", list)
		}
		r := run(t, "--db", dsn, "admin", "support", "list").ok(t)
		if !strings.Contains(r.stdout, "(none)") {
			t.Errorf("human support list of nobody = %q", r.stdout)
		}
	})
}

// open opens the service on dsn, as the tests' view of what the commands did.
func open(t *testing.T, dsn string) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), app.Config{DB: dsn, DataDir: t.TempDir(), NoOutbox: true,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// signIn fails the test unless the owner signs in with password.
func signIn(t *testing.T, a *app.App, email, password string) {
	t.Helper()
	if _, err := a.OAuth.SignIn(context.Background(), oauth.KindOwner, email, password); err != nil {
		t.Errorf("the owner cannot sign in with %q: %v", password, err)
	}
}

// mailedPassword returns the password in the newest message queued to email.
func mailedPassword(t *testing.T, a *app.App, email string) string {
	t.Helper()
	ids, err := a.DB.DueMessages(context.Background(), time.Now().Add(time.Minute), 100)
	if err != nil || len(ids) == 0 {
		t.Fatalf("no message queued: %v", err)
	}
	m, ok, err := a.DB.ClaimMessage(context.Background(), ids[len(ids)-1], "test", time.Now().Add(time.Minute), time.Now().Add(time.Hour))
	if err != nil || !ok || m.To != email {
		t.Fatalf("queued message = %+v, %v, %v; want one to %s", m, ok, err, email)
	}
	p := regexp.MustCompile(`(?m)^Password: (\S+)$`).FindStringSubmatch(m.Body)
	if p == nil {
		t.Fatalf("the message carries no password:\n%s", m.Body)
	}
	return p[1]
}

// TestRefusalsAreNoUsageErrors: a well-formed command that what the
// database holds refuses (an owner e-mail that exists, a coalition that
// does not) exits 1, naming the flag; 2 stays for a malformed command line.
func TestRefusalsAreNoUsageErrors(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		run(t, "--db", dsn, "migrate").ok(t)
		create := func(email string, more ...string) []string {
			return append([]string{"business", "create", "--name", "Corner Cafe", "--loyalty-type", "per_spend",
				"--owner-email", email, "--owner-password", "first-password"}, more...)
		}
		admin(t, dsn, create("owner@cafe.example")...)
		fail(t, dsn, cli.ExitError, "--owner-email: An owner with this e-mail already exists.", create("Owner@Cafe.example")...)
		fail(t, dsn, cli.ExitError, "already exists", append(create("owner@cafe.example"), "--json")...)
		run(t, "--db", dsn, "--json", "admin", "business", "create", "--name", "Corner Cafe", "--loyalty-type", "per_spend",
			"--owner-email", "owner@cafe.example", "--owner-password", "first-password").fails(t, cli.ExitError, "already exists")
		fail(t, dsn, cli.ExitError, "--coalition: The coalition does not exist.",
			create("other@cafe.example", "--coalition", "0123456789abcdef0123456789abcdef")...)
		fail(t, dsn, cli.ExitUsage, "--loyalty-type", create("other@cafe.example", "--loyalty-type", "per_hour")...)

		admin(t, dsn, "support", "create", "--email", "ann@support.example", "--password", "support-pass-1")
		fail(t, dsn, cli.ExitError, "--email: The email has already been taken.",
			"support", "create", "--email", "Ann@Support.example", "--password", "support-pass-2")
		if list := admin(t, dsn, "business", "list")["businesses"].([]any); len(list) != 1 {
			t.Errorf("the refused commands created businesses: %v", list)
		}
	})
}
