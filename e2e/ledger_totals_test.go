package e2e

import (
	"fmt"
	"net/http"
	"testing"
)

// totalsPage is a page of GET /transactions.
type totalsPage struct {
	Data []struct {
		ID   float64 `json:"id"`
		Type int     `json:"transaction_type"`
	} `json:"data"`
	Meta struct {
		Total int `json:"total"`
	} `json:"meta"`
}

// ledgerByType lists the whole ledger page by page and returns its
// number of entries of each type code.
func (c *client) ledgerByType(t *testing.T) map[int]int {
	t.Helper()
	out := map[int]int{}
	seen := map[float64]bool{}
	for page := 1; ; page++ {
		var p totalsPage
		c.get(t, fmt.Sprintf("/transactions?per_page=100&page=%d", page)).want(t, http.StatusOK).decode(t, &p)
		for _, e := range p.Data {
			if seen[e.ID] {
				t.Fatalf("entry %v listed twice", e.ID)
			}
			seen[e.ID] = true
			out[e.Type]++
		}
		if len(p.Data) < 100 {
			return out
		}
	}
}

// wantLedgerTotals fails the test unless meta.total of GET /transactions
// is the number of entries the listed ledger holds. (GET /transactions
// takes no transaction_type filter; the store's totals under one are
// TestLedgerTotals' of internal/sqlstore.)
func (c *client) wantLedgerTotals(t *testing.T, who string) map[int]int {
	t.Helper()
	byType := c.ledgerByType(t)
	all := 0
	for _, n := range byType {
		all += n
	}
	var p totalsPage
	c.get(t, "/transactions?per_page=1").want(t, http.StatusOK).decode(t, &p)
	if p.Meta.Total != all {
		t.Errorf("%s: GET /transactions has meta.total %d; the ledger lists %d entries", who, p.Meta.Total, all)
	}
	return byType
}

// TestLedgerTotals: meta.total of GET /transactions is the number of
// entries the ledger lists after rewards, redemptions, a return, an adjustment, a
// cancellation and an import; another business's ledger is its own.
func TestLedgerTotals(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@totals.example"})
		bob := a.createCustomer(t, map[string]any{"email": "bob@totals.example"})
		post := func(c *client, body map[string]any) map[string]any {
			t.Helper()
			return c.do(t, http.MethodPost, "/transactions", body).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		}
		var rewards []string
		for i := range 3 {
			for _, who := range []string{ann.ID, bob.ID} {
				r := post(a, map[string]any{"intent": "reward", "amount": 10 + i, "customer": map[string]any{"id": who}})
				rewards = append(rewards, fmt.Sprint(int64(r["id"].(float64))))
			}
		}
		post(a, map[string]any{"intent": "redeem", "points": 3, "customer": map[string]any{"id": ann.ID}})
		post(a, map[string]any{"intent": "return", "amount": 2, "customer": map[string]any{"id": bob.ID}})
		post(a, map[string]any{"intent": "adjust_points_balance", "points": 4, "customer": map[string]any{"id": bob.ID}})
		a.do(t, http.MethodDelete, "/transactions/"+rewards[0], nil).want(t, http.StatusNoContent)
		a.wantLedgerTotals(t, "before the import")

		file := "intent,customer.id,points\n" +
			"adjust_points_balance," + ann.ID + ",40\n" +
			"adjust_points_balance," + bob.ID + ",7\n"
		var up struct{ Data importView }
		a.importUpload(t, [][2]string{{"type", "transactions"}, {"file", file}}).want(t, http.StatusOK).decode(t, &up)
		if done := a.importRun(t, up.Data.FileID, up.Data.ID); done.Totals.Imported != 2 {
			t.Fatalf("the import: %+v", done)
		}
		mine := a.wantLedgerTotals(t, "after the import")
		if mine[80] < 3 || mine[4] != 6 || mine[44] != 1 {
			t.Errorf("the ledger by type: %v", mine)
		}

		o := e.owner(t, e.newBusiness(t, "Other Totals"))
		cat := o.createCustomer(t, map[string]any{"email": "cat@totals.example"})
		post(o, map[string]any{"intent": "reward", "amount": 5, "customer": map[string]any{"id": cat.ID}})
		if theirs := o.wantLedgerTotals(t, "the other business"); theirs[4] != 1 || len(theirs) != 1 {
			t.Errorf("the other business's ledger by type: %v", theirs)
		}
		a.wantLedgerTotals(t, "after the other business's reward")
	})
}
