package sqlstore

import (
	"strings"
	"testing"
)

// TestPositional: a query whose parameters are $1 … $n once each in order
// is prepared with ? parameters; any other is left as it is, quotes and
// comments not read as parameters.
func TestPositional(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT a FROM t WHERE b = $1 AND c = $2`, `SELECT a FROM t WHERE b = ? AND c = ?`},
		{`INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, `INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{`SELECT '$9 it''s $1', "$x" FROM t WHERE b = $1 -- $7` + "\n" + `AND c = $2 /* $3 */`,
			`SELECT '$9 it''s $1', "$x" FROM t WHERE b = ? -- $7` + "\n" + `AND c = ? /* $3 */`},
		{`SELECT CAST($1 AS TEXT)::text`, `SELECT CAST(? AS TEXT)::text`},
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = $2 AND c = $1`, ""},        // out of order
		{`SELECT a FROM t WHERE b = $1 OR c = $1`, ""},         // twice
		{`SELECT a FROM t WHERE b = $1 AND c = $3`, ""},        // a gap
		{`SELECT a FROM t WHERE b = $1 AND c = ?`, ""},         // mixed
		{`SELECT a FROM t WHERE b = :name AND c = $1`, ""},     // named
		{`SELECT a FROM t WHERE b = $abc`, ""},                 // named the Tcl way
		{`SELECT a FROM t WHERE b = $1 AND c = 'open`, ""},     // unterminated
		{`SELECT a FROM t WHERE b = $01`, ""},                  // not how a store query numbers
		{`SELECT a FROM t WHERE b = $1 AND c = @p`, ""},        // named
		{`SELECT a FROM t WHERE b = $1 /* open`, ""},           // unterminated comment
		{`SELECT a FROM t WHERE b = $1 AND c = $2` + "--", ""}, // a comment to the end without a new line
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		if got := positional(c.in); got != want {
			t.Errorf("positional(%q) = %q, want %q", c.in, got, want)
		}
	}
}

// TestHotStatementsPositional: the entry and basket statements of every
// reward on SQLite's writer and the read of a customer are ones
// positional writes with ? (a statement that repeats a parameter would
// bind by name again). The balance's update is not: it names the
// entry's time four times, which bound as one named parameter is
// formatted once.
func TestHotStatementsPositional(t *testing.T) {
	for name, q := range map[string]string{"aloneInsert": aloneInsert, "insertBaskets[1]": insertBaskets[1], "insertBaskets[16]": insertBaskets[16],
		"insertBasketLines[5]": insertBasketLines[5], "insertBasketLines[16]": insertBasketLines[16],
		"customerByKey": customerByKey[SQLite]} {
		if got := positional(q); got == q || strings.Contains(got, "$") {
			t.Errorf("%s keeps numbered parameters:\n%s", name, got)
		}
	}
}
