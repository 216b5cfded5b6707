package e2e

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// csvRows reads a CSV answer.
func csvRows(t *testing.T, r *result) [][]string {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("%s: Content-Type %q", r.what, ct)
	}
	rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v\n%s", r.what, err, r.Body)
	}
	return rows
}

// TestConsoleExports: a manager downloads the customers matching the
// search as CSV (text a spreadsheet would run as a formula kept as text)
// and the ledger between two days; both are streamed (sent in chunks as
// they are read, with no length announced), each export is in the audit
// log, and a cashier is refused.
func TestConsoleExports(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.ownerConsole(t)
		m := e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1")
		cashier := e.staffConsole(t, owner, "till@cafe.example", "cashier", "cashier-pass-1")
		ctx := context.Background()
		b, err := e.app.DB.Business(ctx, e.biz.ID)
		if err != nil {
			t.Fatal(err)
		}
		const crowd = 620 // more than one flush of rows
		for i := range crowd {
			c, err := e.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("guest%03d@crowd.example", i)),
				FirstName: loyalty.Some("Guest")})
			if err != nil {
				t.Fatal(err)
			}
			if i < 3 {
				if _, _, err := e.app.Services.Transactions.Create(ctx, b, loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentAdjust),
					Points: loyalty.Some[int64](int64(10 + i)), Comments: loyalty.Some("=HYPERLINK(\"x\")"),
					Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)})}, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := e.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("eve@friends.example"),
			FirstName: loyalty.Some("=cmd|' /C calc'!A0"), Enabled: loyalty.Some(false)}); err != nil {
			t.Fatal(err)
		}

		cashier.get(t, "/business/customers/export").want(t, http.StatusForbidden)
		cashier.get(t, "/business/ledger/export").want(t, http.StatusForbidden)
		m.get(t, "/business/customers").want(t, http.StatusOK).has(t, `href="/business/customers/export?"`)
		m.get(t, "/business/customers?q=eve%40&enabled=no").want(t, http.StatusOK).
			has(t, `href="/business/customers/export?enabled=no&q=eve%40"`)

		all := m.get(t, "/business/customers/export").want(t, http.StatusOK)
		if all.Header.Get("Content-Length") != "" {
			t.Errorf("the export announced its length (%s): it was not streamed", all.Header.Get("Content-Length"))
		}
		rows := csvRows(t, all)
		if len(rows) != crowd+2 || strings.Join(rows[0], ",") != "id,first_name,last_name,email,phone,birth_date,language,enabled,points,giftcard (USD),joined_at" {
			t.Fatalf("%d rows, header %v; want %d customers", len(rows)-1, rows[0], crowd+1)
		}
		if got := rows[1]; got[3] != "guest000@crowd.example" || got[8] != "10" || got[9] != "0.00" || got[7] != "true" {
			t.Errorf("first row %v", got)
		}
		eve := csvRows(t, m.get(t, "/business/customers/export?q=eve%40&enabled=no").want(t, http.StatusOK))
		if len(eve) != 2 || eve[1][1] != "'=cmd|' /C calc'!A0" || eve[1][7] != "false" {
			t.Errorf("the export of Eve: %v", eve)
		}
		m.get(t, "/business/customers/export?joined_from=yesterday").want(t, http.StatusUnprocessableEntity).has(t, "YYYY-MM-DD")

		ledger := csvRows(t, m.get(t, "/business/ledger/export?from=2000-01-01&to=2099-12-31").want(t, http.StatusOK))
		if len(ledger) != 4 || ledger[0][0] != "id" || ledger[1][3] != "adjust_points_balance" || ledger[3][5] != "12" ||
			ledger[1][14] != "'=HYPERLINK(\"x\")" {
			t.Errorf("the ledger export: %v", ledger)
		}
		if none := csvRows(t, m.get(t, "/business/ledger/export?to=2000-01-01").want(t, http.StatusOK)); len(none) != 1 {
			t.Errorf("the ledger before 2000: %v, want the header alone", none)
		}
		m.get(t, "/business/ledger/export?from=2026-02-30").want(t, http.StatusUnprocessableEntity)

		var exports []string
		for _, a := range e.auditActions(t, e.biz.ID) {
			if strings.Contains(a, ".exported") {
				exports = append(exports, a)
			}
		}
		want := []string{"ledger.exported Ledger by mgr@cafe.example", "ledger.exported Ledger by mgr@cafe.example",
			"customers.exported Customers by mgr@cafe.example", "customers.exported Customers by mgr@cafe.example"}
		if strings.Join(exports, "\n") != strings.Join(want, "\n") {
			t.Errorf("export entries in the audit log:\n%s", strings.Join(exports, "\n"))
		}
	})
}
