package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestReferenceTransactionDetails replays rest_transaction_details.apib
// (PATCH /transactions/{id}/details) and checks what it must never do:
// change anything of the entry but its details, or reach another
// business's entry; and that each change is in the audit log, the entry
// named by its customer beside its id.
func TestReferenceTransactionDetails(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@details.example"})
		entry := a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 10,
			"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		id := catID(entry)
		path := "/transactions/" + id + "/details"

		// The docs' example, sent as they send it.
		d := a.replay(t, "PATCH", path, `{"external_order_id": "ORD374938098", "custom_field_1": "83648-3836"}`).
			want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantDetails(t, d, "ORD374938098", "83648-3836", nil, nil, nil, nil)

		// The docs' table names the fields under transaction_details; only
		// the fields sent change, and null clears one.
		d = a.replay(t, "PATCH", path, `{"transaction_details": {"custom_field_2": "two", "custom_field_1": null}}`).
			want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantDetails(t, d, "ORD374938098", nil, "two", nil, nil, nil)

		// A field that is not a detail is named, and nothing changes.
		a.replay(t, "PATCH", path, `{"points": 500, "custom_field_3": "three"}`).wantFields(t, "points")
		a.replay(t, "PATCH", path, `{"transaction_details": {"amount": 5}}`).wantFields(t, "transaction_details.amount")
		a.replay(t, "PATCH", path, `{"custom_field_4": 5}`).wantFields(t, "custom_field_4")
		a.replay(t, "PATCH", path, `{"custom_field_4": ""}`).wantFields(t, "custom_field_4")
		a.replay(t, "PATCH", path, `{"custom_field_5": "`+strings.Repeat("x", 256)+`"}`).wantFields(t, "custom_field_5")
		a.replay(t, "PATCH", path, `{}`).wantFields(t, "transaction_details")
		a.replay(t, "PATCH", path, `[1]`).wantError(t, http.StatusBadRequest)
		a.replay(t, "PATCH", "/transactions/abc/details", `{"custom_field_1": "x"}`).wantError(t, http.StatusBadRequest)
		a.replay(t, "PATCH", "/transactions/99999999/details", `{"custom_field_1": "x"}`).wantError(t, http.StatusNotFound)

		// The entry as the ledger shows it: the same points and balance,
		// the new details.
		var list struct{ Data []map[string]any }
		a.get(t, "/customers/"+ann.ID+"/transactions?relationships=transaction_details").want(t, http.StatusOK).decode(t, &list)
		i := slices.IndexFunc(list.Data, func(x map[string]any) bool { return catID(x) == id })
		if i < 0 {
			t.Fatalf("entry %s is not in the customer's list %v", id, list.Data)
		}
		wantAt(t, list.Data[i], "points", 10.0, "amount", entry["amount"], "transaction_details.external_order_id", "ORD374938098",
			"transaction_details.custom_field_2", "two", "transaction_details.custom_field_3", "")
		if got := a.get(t, "/customers/"+ann.ID+"?include=balance").want(t, http.StatusOK).obj(t)["data"].(map[string]any); at(got, "balance.points") != 10.0 {
			t.Errorf("balance after the details changed: %v", at(got, "balance"))
		}

		// Another business neither sees nor changes the entry.
		other := e.owner(t, e.newBusiness(t, "Elsewhere"))
		other.replay(t, "PATCH", path, `{"custom_field_1": "theirs"}`).wantError(t, http.StatusNotFound)

		// Each change is audited, with the app as its actor; refusals are not.
		var mine []string
		for _, s := range e.auditActions(t, e.biz.ID) {
			if strings.HasPrefix(s, "transaction.details_updated") {
				mine = append(mine, s)
			}
		}
		if len(mine) != 2 || !strings.Contains(mine[0], fmt.Sprintf("Transaction #%s of ann@details.example by POS", id)) {
			t.Errorf("audit log of the details: %q, want the two changes of Ann's entry by the app (POS)", mine)
		}
	})
}

// wantDetails checks the six details of a PATCH reply, in the docs' order
// (nil: null).
func wantDetails(t *testing.T, d map[string]any, want ...any) {
	t.Helper()
	for i, f := range []string{"external_order_id", "custom_field_1", "custom_field_2", "custom_field_3", "custom_field_4", "custom_field_5"} {
		v, ok := d[f]
		if !ok || v != want[i] {
			t.Errorf("%s = %v (present %v), want %v", f, v, ok, want[i])
		}
	}
}
