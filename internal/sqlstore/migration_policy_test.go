package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/testenv"
)

// The migration policy (docs/operations.md, Upgrading): a PostgreSQL
// migration runs while the instances of this release and of the previous
// one serve, so it keeps writes flowing and leaves the previous release
// working. TestMigrationPolicy reads every PostgreSQL migration and
// refuses what breaks that, by rule:
//
//   - index: CREATE INDEX without CONCURRENTLY on a table an earlier
//     migration made (writes wait for the whole build), or a PRIMARY KEY
//     or UNIQUE constraint added without USING INDEX (the same, built
//     under the table's lock);
//   - rewrite: ALTER COLUMN ... TYPE, a column added with a volatile
//     default, a serial, an identity or a stored generated column, SET
//     LOGGED/UNLOGGED/TABLESPACE: each rewrites the table under its lock;
//   - validate: a CHECK or FOREIGN KEY added to a table an earlier
//     migration made without NOT VALID (or inline on a new column): every
//     row is read under the lock;
//   - not-null: SET NOT NULL without a CHECK (col IS NOT NULL) validated
//     before it (the table is read under its lock), or a column added NOT
//     NULL without a default;
//   - backfill: UPDATE or DELETE of a table that grows with customers or
//     entries (not in smallTables), or INSERT ... SELECT from one into a
//     table an earlier migration made, in one statement or one
//     transaction: a backfill goes in batches, each its
//     own transaction (a DO block or procedure that loops and COMMITs, in
//     a NO TRANSACTION migration);
//   - contract: DROP TABLE, DROP COLUMN, DROP CONSTRAINT, DROP INDEX,
//     RENAME of what an earlier migration made: the previous release
//     still reads it (its columns, its ON CONFLICT keys, its plans);
//   - concurrently: CREATE/DROP INDEX CONCURRENTLY in a migration that
//     runs in a transaction (PostgreSQL refuses it): the file says
//     -- +goose NO TRANSACTION;
//   - retry: in a NO TRANSACTION migration, a statement that cannot run
//     twice (CREATE without IF NOT EXISTS, ADD COLUMN without IF NOT
//     EXISTS, DROP without IF EXISTS, CREATE FUNCTION/PROCEDURE without
//     OR REPLACE, CREATE INDEX CONCURRENTLY without first dropping an
//     invalid one left by an earlier try) before its last statement: the
//     runner tries such a migration again from its first statement
//     (sqlstore.MigrationLockTimeout);
//   - lock-timeout: CREATE INDEX CONCURRENTLY not under SET lock_timeout
//     = 0 (its waits for older transactions would give up), a SET
//     lock_timeout of a NO TRANSACTION migration not RESET by its end, or
//     a plain SET in a transaction (SET LOCAL is the transaction's own).
//
// What a migration makes itself (a new table, its indexes) is free.
// Exceptions are listed in migrationAllowed with their reasons.

// migrationBaseline is the last migration of the previous release
// (deploy/previous-release): the ones up to it shipped before this policy
// and are what they are; an exception after it must also be told to the
// operator in docs/operations.md.
const migrationBaseline = 53

// smallTables grow with a business's setup, not with its customers or
// entries: updating one whole is quick.
var smallTables = map[string]bool{
	"access_generation": true, "application_keys": true, "apps": true, "automations": true, "branches": true,
	"business_rules": true, "businesses": true, "campaigns": true, "coalitions": true, "customer_counts": true,
	"dashboard_backfills": true, "developers": true, "earning_rule_budgets": true, "earning_rules": true,
	"event_cursors": true, "event_sequences": true, "giftcard_branches": true, "import_mappings": true,
	"imports": true, "job_leases": true, "offer_branches": true, "offer_targets": true, "offers": true,
	"owners": true, "product_branches": true, "product_categories": true, "punch_cards": true,
	"referral_programs": true, "reward_branches": true, "reward_targets": true, "reward_tiers": true,
	"rewards": true, "segments": true, "server_secrets": true, "staff": true, "support_staff": true,
	"tier_levels": true, "tiers": true, "webhook_endpoints": true,
}

// migrationAllowed are the exceptions to the policy, keyed as
// migrationViolation.key writes them ("00028 index point_lots"), each
// with its reason. An entry that no longer matches a violation fails the
// test, so the list cannot outlive what it excuses.
var migrationAllowed = map[string]string{
	// Up to the baseline: shipped in earlier releases and applied on every
	// database there is, so rewriting them would change nothing but
	// fresh installations, whose tables are empty. docs/operations.md
	// tells what the costly ones cost.
	"00005 backfill customers":                                 shipped + "copies each member's e-mail and phone onto their customers in one UPDATE",
	"00005 index customers":                                    shipped + "customers_email and customers_phone built under the table's lock",
	"00006 index apps":                                         shipped + "a small table",
	"00006 index oauth_tokens":                                 shipped,
	"00006 validate apps.developer_id":                         shipped + "a small table",
	"00008 index transactions":                                 shipped + "the ledger's customer and reversal indexes rebuilt under its lock",
	"00008 contract transactions_customer":                     shipped + "rebuilt in the same migration",
	"00008 contract transactions.transactions_reverses_id_key": shipped + "replaced by the partial transactions_reverses",
	"00008 validate transactions":                              shipped + "transactions_customer_fkey checked every entry under the lock",
	"00011 index offer_branches":                               shipped + "a small table",
	"00012 index branches":                                     shipped + "a small table",
	"00012 index idempotency_keys":                             shipped,
	"00012 backfill transactions":                              shipped + "old entries put on their business's main branch in one UPDATE",
	"00013 index web_sessions":                                 shipped,
	"00013 validate web_sessions":                              shipped,
	"00016 index transactions":                                 shipped + "transactions_lot_event, on a column then all NULL",
	"00016 validate business_rules.points_expire_unit":         shipped + "a small table",
	"00016 validate customers.pending_points":                  shipped + "a CHECK on a new column of a constant default",
	"00017 index customers":                                    shipped + "the search prefixes",
	"00017 index referrals":                                    shipped,
	"00022 index customers":                                    shipped + "the search prefixes rebuilt by business",
	"00022 contract customers_email_prefix":                    shipped + "rebuilt in the same migration",
	"00022 contract customers_phone_prefix":                    shipped + "rebuilt in the same migration",
	"00022 contract customers_name_prefix":                     shipped + "rebuilt in the same migration",
	"00022 contract customers_last_name_prefix":                shipped + "rebuilt in the same migration",
	"00025 index outbox":                                       shipped + "partial, over the messages being sent",
	"00028 index point_lots":                                   shipped + "point_lots_expiry rebuilt under point_lots' lock (docs/operations.md)",
	"00028 contract point_lots_expiry":                         shipped + "rebuilt in the same migration",
	"00031 rewrite events.id":                                  shipped + "a collation only: no row rewritten, the event log's indexes rebuilt under its lock",
	"00031 rewrite events.business_id":                         shipped + "as events.id",
	"00032 contract events.events_pkey":                        shipped + "the previous release looked events up by id: every instance upgraded together (docs/operations.md)",
	"00033 backfill transactions":                              shipped + "every entry's type code and name rewritten in two UPDATEs",
	"00034 index offer_uses":                                   shipped + "the key rebuilt with the period",
	"00034 contract offer_uses.offer_uses_pkey":                shipped + "replaced in the same statement",
	"00035 contract businesses.currency_symbol":                shipped + "read by no release since the currency came from its code",
	"00036 validate imports":                                   shipped + "a small table",
	"00041 index baskets":                                      shipped,
	"00041 validate baskets.returns_id":                        shipped + "a new column, all NULL",
	"00043 index coupons":                                      shipped,
	"00052 validate web_sessions":                              shipped + "a wider kind check",
	"00052 validate user_secrets":                              shipped + "a wider purpose check",

	// After the baseline: what an instance of the previous release
	// cannot do while this release's schema is in place, told to the
	// operator in docs/operations.md.
	"00060 contract import_errors.import_errors_pkey": "a rechecked file keeps its rows in error under each check, " +
		"which the old key (import, stage, row) refused; the previous release's ON CONFLICT names that key, so its " +
		"imports fail on rows in error until it is replaced",
}

// shipped begins the reason of an exception up to migrationBaseline.
const shipped = "shipped before the policy; "

// migrationViolation is one statement against one rule.
type migrationViolation struct {
	version int
	rule    string
	subject string // the table, column or index it concerns
	stmt    string
}

func (v migrationViolation) key() string {
	return fmt.Sprintf("%05d %s %s", v.version, v.rule, v.subject)
}

// TestMigrationPolicy checks every PostgreSQL migration against the
// policy above.
func TestMigrationPolicy(t *testing.T) {
	dir := filepath.Join("migrations", "postgres")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []policyFile
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parsePolicyFile(e.Name(), string(b))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	ops, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, v := range checkMigrations(files) {
		reason, ok := migrationAllowed[v.key()]
		switch {
		case !ok:
			t.Errorf("migration %05d breaks the rule %q on %s (see TestMigrationPolicy):\n\t%s", v.version, v.rule, v.subject, v.stmt)
		case v.version > migrationBaseline && !strings.Contains(string(ops), fmt.Sprintf("%05d", v.version)):
			t.Errorf("migration %05d is excused from %q on %s (%s), but docs/operations.md does not tell the operator about %05d",
				v.version, v.rule, v.subject, reason, v.version)
		}
		used[v.key()] = true
	}
	for k := range migrationAllowed {
		if !used[k] {
			t.Errorf("migrationAllowed excuses %q, which no migration does any more: remove it", k)
		}
	}
}

// TestMigrationBaseline: migrationBaseline is the last PostgreSQL
// migration of the previous release that deploy/previous-release names
// (when the repository's history holds it).
func TestMigrationBaseline(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	commit, err := testenv.PreviousRelease(root)
	if err != nil {
		t.Fatal(err)
	}
	last, err := testenv.ReleaseBaseline(context.Background(), root, commit)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("the previous release's migrations are not at hand: %v", err)
	}
	if last != migrationBaseline {
		t.Errorf("the previous release (%s) ends at migration %d; migrationBaseline is %d", commit, last, migrationBaseline)
	}
}

// policyFile is a migration's Up statements.
type policyFile struct {
	version int
	noTx    bool
	stmts   []string // lower case, comments removed, spaces collapsed
}

// parsePolicyFile splits a migration's Up section into statements as
// goose does: at a line ending in ";", or between StatementBegin and
// StatementEnd.
func parsePolicyFile(name, text string) (policyFile, error) {
	n, _, _ := strings.Cut(name, "_")
	v, err := strconv.Atoi(n)
	if err != nil {
		return policyFile{}, fmt.Errorf("%s: %w", name, err)
	}
	f := policyFile{version: v}
	up, block := false, false
	var cur []string
	flush := func() {
		s := strings.Join(strings.Fields(strings.ToLower(strings.Join(cur, " "))), " ")
		if s != "" {
			f.stmts = append(f.stmts, s)
		}
		cur = nil
	}
	for _, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "-- +goose"):
			switch strings.TrimSpace(strings.TrimPrefix(trim, "-- +goose")) {
			case "NO TRANSACTION":
				f.noTx = true
			case "Up":
				up = true
			case "Down":
				up = false
			case "StatementBegin":
				block = true
			case "StatementEnd":
				block = false
				if up {
					flush()
				}
			}
			continue
		case !up:
			continue
		}
		if i := strings.Index(line, "--"); i >= 0 && !strings.Contains(line[:i], "'") {
			line = line[:i]
		}
		cur = append(cur, line)
		if !block && strings.HasSuffix(strings.TrimSpace(line), ";") {
			flush()
		}
	}
	flush()
	return f, nil
}

var (
	reCreateTable   = regexp.MustCompile(`^create (?:unlogged )?table (if not exists )?(\w+)`)
	reCreateIndex   = regexp.MustCompile(`^create (?:unique )?index (concurrently )?(if not exists )?(?:(\w+) )?on (?:only )?(\w+)`)
	reDropIndex     = regexp.MustCompile(`^drop index (concurrently )?(if exists )?(\w+)`)
	reDropTable     = regexp.MustCompile(`^drop table (if exists )?(\w+)`)
	reAlterTable    = regexp.MustCompile(`^alter table (?:if exists )?(?:only )?(\w+) (.*)$`)
	reUpdate        = regexp.MustCompile(`(?:^|[\s;(])(update|delete from) (?:only )?(\w+)`)
	reInsertSelect  = regexp.MustCompile(`^insert into (\w+)[^;]*? select .* from (\w+)`)
	reRoutine       = regexp.MustCompile(`^(?:do |create (or replace )?(procedure|function) )`)
	reVolatile      = regexp.MustCompile(`default [^,]*(clock_timestamp|random\(|gen_random_uuid|uuid_generate|nextval|timeofday)`)
	reNotNullCheck  = regexp.MustCompile(`^add constraint (\w+) check \(\(?(\w+) is not null\)?\)`)
	reAddColumn     = regexp.MustCompile(`^add (?:column )?(if not exists )?(\w+) (.*)$`)
	reAlterColumn   = regexp.MustCompile(`^alter (?:column )?(\w+) (.*)$`)
	reDropColumn    = regexp.MustCompile(`^drop (?:column )?(if exists )?(\w+)`)
	reDropConstr    = regexp.MustCompile(`^drop constraint (if exists )?(\w+)`)
	reValidate      = regexp.MustCompile(`^validate constraint (\w+)`)
	reAddConstraint = regexp.MustCompile(`^add (?:constraint (\w+) )?(primary key|unique|check|foreign key|exclude)`)
)

// checkMigrations applies the policy to the migrations in order, knowing
// which tables and indexes each found made by the ones before it.
func checkMigrations(files []policyFile) []migrationViolation {
	tables := map[string]bool{}    // made by earlier migrations
	indexes := map[string]string{} // index -> table, made by earlier migrations
	checked := map[string]bool{}   // table.column with a validated NOT NULL check
	var out []migrationViolation
	for _, f := range files {
		made := map[string]bool{}
		madeIndexes := map[string]string{}
		pendingChecks := map[string]string{} // constraint -> table.column
		lockTimeout := ""                    // "" not set, else the value SET
		var dropped []string                 // invalid indexes dropped before a CREATE INDEX CONCURRENTLY
		add := func(rule, subject, stmt string) {
			if len(stmt) > 160 {
				stmt = stmt[:160] + "…"
			}
			out = append(out, migrationViolation{f.version, rule, subject, stmt})
		}
		old := func(table string) bool { return tables[table] && !made[table] }
		for i, s := range f.stmts {
			last := i == len(f.stmts)-1
			retry := func(ok bool, subject string) {
				if f.noTx && !last && !ok {
					add("retry", subject, s)
				}
			}
			switch {
			case strings.HasPrefix(s, "set lock_timeout") || strings.HasPrefix(s, "set local lock_timeout"):
				if !f.noTx && !strings.HasPrefix(s, "set local") {
					add("lock-timeout", "set", s)
				}
				lockTimeout = strings.Trim(strings.TrimSpace(s[strings.LastIndexAny(s, "= ")+1:]), "';")
				if strings.HasPrefix(s, "set lock_timeout to default") {
					lockTimeout = ""
				}
			case strings.HasPrefix(s, "reset lock_timeout"):
				lockTimeout = ""
			case reCreateTable.MatchString(s):
				m := reCreateTable.FindStringSubmatch(s)
				made[m[2]] = true
				retry(m[1] != "", m[2])
			case reCreateIndex.MatchString(s):
				m := reCreateIndex.FindStringSubmatch(s)
				conc, ifNot, name, table := m[1] != "", m[2] != "", m[3], m[4]
				madeIndexes[name] = table
				switch {
				case conc && !f.noTx:
					add("concurrently", name, s)
				case conc:
					if lockTimeout != "0" {
						add("lock-timeout", name, s)
					}
					retry(slices.Contains(dropped, name), name)
				case old(table):
					add("index", table, s)
				default:
					retry(ifNot, name)
				}
			case reDropIndex.MatchString(s):
				m := reDropIndex.FindStringSubmatch(s)
				conc, ifExists, name := m[1] != "", m[2] != "", m[3]
				if conc && !f.noTx {
					add("concurrently", name, s)
				}
				if t, ok := indexes[name]; ok && old(t) {
					add("contract", name, s)
				}
				if conc && ifExists {
					dropped = append(dropped, name)
				}
				retry(ifExists, name)
				delete(indexes, name)
			case reDropTable.MatchString(s):
				m := reDropTable.FindStringSubmatch(s)
				if old(m[2]) {
					add("contract", m[2], s)
				}
				retry(m[1] != "", m[2])
				delete(tables, m[2])
			case reAlterTable.MatchString(s):
				m := reAlterTable.FindStringSubmatch(s)
				table := m[1]
				for _, a := range splitTopLevel(strings.TrimSuffix(m[2], ";")) {
					checkAlterAction(f, table, a, old(table), checked, pendingChecks, func(rule, subject string) {
						switch rule {
						case "retry":
							retry(false, subject)
						default:
							add(rule, subject, s)
						}
					})
					if r := regexp.MustCompile(`^rename to (\w+)`).FindStringSubmatch(a); r != nil {
						made[r[1]] = made[table]
						tables[r[1]] = tables[table]
						delete(tables, table)
					}
				}
			case reRoutine.MatchString(s):
				m := reRoutine.FindStringSubmatch(s)
				if m[2] == "function" {
					// Trigger and query functions: run by the
					// service, not by the migration.
					retry(m[1] != "", "function")
					continue
				}
				if m[2] == "procedure" {
					retry(m[1] != "", "procedure")
				}
				batched := f.noTx && strings.Contains(s, " loop") && strings.Contains(s, "commit")
				for _, u := range reUpdate.FindAllStringSubmatch(s, -1) {
					if old(u[2]) && !smallTables[u[2]] && !batched {
						add("backfill", u[2], s)
					}
				}
			case strings.HasPrefix(s, "update ") || strings.HasPrefix(s, "delete from "):
				u := reUpdate.FindStringSubmatch(s)
				if old(u[2]) && !smallTables[u[2]] {
					add("backfill", u[2], s)
				}
			case reInsertSelect.MatchString(s):
				m := reInsertSelect.FindStringSubmatch(s)
				// Into a table of its own, a copy holds up no writer.
				if old(m[1]) && old(m[2]) && !smallTables[m[2]] {
					add("backfill", m[1], s)
				}
				retry(strings.Contains(s, "on conflict"), m[1])
			}
		}
		if f.noTx && lockTimeout != "" {
			add("lock-timeout", "reset", "SET lock_timeout without RESET lock_timeout by the end")
		}
		for t := range made {
			tables[t] = true
		}
		for n, t := range madeIndexes {
			indexes[n] = t
		}
	}
	return out
}

// checkAlterAction checks one action of ALTER TABLE table: old says
// whether an earlier migration made the table.
func checkAlterAction(f policyFile, table, a string, old bool, checked map[string]bool, pending map[string]string, add func(rule, subject string)) {
	if m := reAddConstraint.FindStringSubmatch(a); m != nil {
		if c := reNotNullCheck.FindStringSubmatch(a); c != nil {
			pending[c[1]] = table + "." + c[2]
		}
		if !old {
			return
		}
		switch m[2] {
		case "primary key", "unique", "exclude":
			if !strings.Contains(a, "using index") {
				add("index", table)
			}
		default:
			if !strings.Contains(a, "not valid") {
				add("validate", table)
			}
		}
		return
	}
	if m := reValidate.FindStringSubmatch(a); m != nil {
		if col, ok := pending[m[1]]; ok {
			checked[col] = true
		}
		return
	}
	if m := reDropConstr.FindStringSubmatch(a); m != nil {
		// A check or a foreign key gone lets the previous release do
		// all it did; a key gone may not (its ON CONFLICT names it).
		if old && !strings.HasSuffix(m[2], "_check") && !strings.HasSuffix(m[2], "_fkey") {
			add("contract", table+"."+m[2])
		}
		return
	}
	if m := reAddColumn.FindStringSubmatch(a); m != nil {
		col, def := m[2], m[3]
		if m[1] == "" && f.noTx {
			add("retry", table+"."+col)
		}
		if !old {
			return
		}
		switch {
		case reVolatile.MatchString(def), regexp.MustCompile(`^(small|big)?serial`).MatchString(def),
			strings.Contains(def, "generated always as ("), strings.Contains(def, " as identity"):
			add("rewrite", table+"."+col)
		case strings.Contains(def, "references ") || strings.Contains(def, "check "):
			add("validate", table+"."+col)
		case strings.Contains(def, "not null") && !strings.Contains(def, "default "):
			add("not-null", table+"."+col)
		}
		return
	}
	if m := reDropColumn.FindStringSubmatch(a); m != nil {
		if m[1] == "" && f.noTx {
			add("retry", table+"."+m[2])
		}
		if old {
			add("contract", table+"."+m[2])
		}
		return
	}
	if strings.HasPrefix(a, "rename ") {
		if old {
			add("contract", table)
		}
		return
	}
	if strings.HasPrefix(a, "set logged") || strings.HasPrefix(a, "set unlogged") || strings.HasPrefix(a, "set tablespace") {
		if old {
			add("rewrite", table)
		}
		return
	}
	if m := reAlterColumn.FindStringSubmatch(a); m != nil && old {
		col, rest := m[1], m[2]
		switch {
		case strings.HasPrefix(rest, "type ") || strings.HasPrefix(rest, "set data type "):
			add("rewrite", table+"."+col)
		case strings.HasPrefix(rest, "set not null") && !checked[table+"."+col]:
			add("not-null", table+"."+col)
		}
	}
}

// splitTopLevel splits an ALTER TABLE's actions at the commas outside
// parentheses and quotes.
func splitTopLevel(s string) []string {
	var out []string
	depth, quote, start := 0, false, 0
	for i, r := range s {
		switch {
		case r == '\'':
			quote = !quote
		case quote:
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// TestMigrationPolicyCatches: the policy's reading of SQL, on what each
// rule refuses (00054 and 00060 as first written among them) and on the
// online forms it lets through.
func TestMigrationPolicyCatches(t *testing.T) {
	base := "-- +goose Up\nCREATE TABLE customers (business_id TEXT, user_id TEXT);\nCREATE TABLE import_errors (import_id BIGINT);\n" +
		"CREATE TABLE transactions (id BIGINT);\nCREATE INDEX transactions_customer ON transactions (id);\n"
	for _, c := range []struct {
		name, sql string
		want      []string // rule subject
	}{
		{"00054 as first written", `-- +goose Up
CREATE TABLE segments (id BIGINT PRIMARY KEY);
CREATE INDEX segments_business ON segments (id);
ALTER TABLE customers ADD COLUMN visits_total BIGINT NOT NULL DEFAULT 0;
UPDATE customers cu SET visits_total = s.visits
FROM (SELECT customer_id, SUM(visits) AS visits FROM transactions GROUP BY customer_id) s
WHERE cu.user_id = s.customer_id;`, []string{"backfill customers"}},
		{"00060 as first written", `-- +goose Up
ALTER TABLE import_errors ADD COLUMN check_no BIGINT NOT NULL DEFAULT 0;
ALTER TABLE import_errors DROP CONSTRAINT import_errors_pkey;
ALTER TABLE import_errors ADD PRIMARY KEY (import_id, stage, check_no, row_number);`,
			[]string{"contract import_errors.import_errors_pkey", "index import_errors"}},
		{"index", "-- +goose Up\nCREATE INDEX x ON customers (user_id);", []string{"index customers"}},
		{"index concurrently in a transaction", "-- +goose Up\nSET LOCAL lock_timeout = 0;\nCREATE INDEX CONCURRENTLY x ON customers (user_id);",
			[]string{"concurrently x"}},
		{"index concurrently, not run again", "-- +goose NO TRANSACTION\n-- +goose Up\nSET lock_timeout = 0;\nCREATE INDEX CONCURRENTLY x ON customers (user_id);\nRESET lock_timeout;",
			[]string{"retry x"}},
		{"index concurrently, under the lock timeout", "-- +goose NO TRANSACTION\n-- +goose Up\nDROP INDEX CONCURRENTLY IF EXISTS x;\nCREATE INDEX CONCURRENTLY x ON customers (user_id);",
			[]string{"lock-timeout x"}},
		{"index concurrently, online", "-- +goose NO TRANSACTION\n-- +goose Up\nSET lock_timeout = 0;\nDROP INDEX CONCURRENTLY IF EXISTS x;\n" +
			"CREATE INDEX CONCURRENTLY x ON customers (user_id);\nRESET lock_timeout;", nil},
		{"lock timeout not reset", "-- +goose NO TRANSACTION\n-- +goose Up\nSET lock_timeout = '2s';\nALTER TABLE customers ADD COLUMN IF NOT EXISTS a TEXT;",
			[]string{"lock-timeout reset"}},
		{"type", "-- +goose Up\nALTER TABLE customers ALTER COLUMN user_id TYPE BIGINT USING user_id::bigint;", []string{"rewrite customers.user_id"}},
		{"volatile default", "-- +goose Up\nALTER TABLE customers ADD COLUMN token UUID NOT NULL DEFAULT gen_random_uuid();",
			[]string{"rewrite customers.token"}},
		{"serial", "-- +goose Up\nALTER TABLE customers ADD COLUMN n BIGSERIAL;", []string{"rewrite customers.n"}},
		{"stable default", "-- +goose Up\nALTER TABLE customers ADD COLUMN seen TIMESTAMPTZ NOT NULL DEFAULT now();", nil},
		{"not null without default", "-- +goose Up\nALTER TABLE customers ADD COLUMN n BIGINT NOT NULL;", []string{"not-null customers.n"}},
		{"set not null", "-- +goose Up\nALTER TABLE customers ALTER COLUMN user_id SET NOT NULL;", []string{"not-null customers.user_id"}},
		{"set not null after a validated check", "-- +goose Up\nALTER TABLE customers ADD CONSTRAINT u_nn CHECK (user_id IS NOT NULL) NOT VALID;\n" +
			"ALTER TABLE customers VALIDATE CONSTRAINT u_nn;\nALTER TABLE customers ALTER COLUMN user_id SET NOT NULL;", nil},
		{"foreign key", "-- +goose Up\nALTER TABLE transactions ADD CONSTRAINT f FOREIGN KEY (id) REFERENCES customers (user_id);",
			[]string{"validate transactions"}},
		{"foreign key not valid", "-- +goose Up\nALTER TABLE transactions ADD CONSTRAINT f FOREIGN KEY (id) REFERENCES customers (user_id) NOT VALID;", nil},
		{"drop column", "-- +goose Up\nALTER TABLE customers DROP COLUMN user_id;", []string{"contract customers.user_id"}},
		{"drop table", "-- +goose Up\nDROP TABLE import_errors;", []string{"contract import_errors"}},
		{"drop index", "-- +goose Up\nDROP INDEX transactions_customer;", []string{"contract transactions_customer"}},
		{"rename", "-- +goose Up\nALTER TABLE customers RENAME COLUMN user_id TO member_id;", []string{"contract customers"}},
		{"delete", "-- +goose Up\nDELETE FROM transactions WHERE id < 0;", []string{"backfill transactions"}},
		{"update in one transaction of a DO block", "-- +goose NO TRANSACTION\n-- +goose Up\n-- +goose StatementBegin\n" +
			"DO $$ BEGIN UPDATE customers SET user_id = user_id; END $$;\n-- +goose StatementEnd", []string{"backfill customers"}},
		{"update in batches", "-- +goose NO TRANSACTION\n-- +goose Up\n-- +goose StatementBegin\n" +
			"CREATE OR REPLACE PROCEDURE p() LANGUAGE plpgsql AS $$ BEGIN LOOP UPDATE customers SET user_id = user_id WHERE false; COMMIT; EXIT; END LOOP; END $$;\n" +
			"-- +goose StatementEnd\nCALL p();", nil},
		{"not run again", "-- +goose NO TRANSACTION\n-- +goose Up\nALTER TABLE customers ADD COLUMN a TEXT;\nCREATE TABLE t (a TEXT);\nCALL p();",
			[]string{"retry customers.a", "retry t"}},
		{"a new table's own index", "-- +goose Up\nCREATE TABLE t (a TEXT);\nCREATE INDEX t_a ON t (a);\nUPDATE t SET a = '';", nil},
	} {
		f0, err := parsePolicyFile("00001_base.sql", base)
		if err != nil {
			t.Fatal(err)
		}
		f1, err := parsePolicyFile("00002_case.sql", c.sql)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range checkMigrations([]policyFile{f0, f1}) {
			if v.version == 2 {
				got = append(got, v.rule+" "+v.subject)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: the policy finds %q; want %q", c.name, got, c.want)
		}
	}
}
