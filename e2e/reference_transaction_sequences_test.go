package e2e

import (
	"net/http"
	"testing"
)

// TestReferenceTransactionSequences: relationships=transaction_sequences
// on both ledger lists shows each entry's cancellation as the entry that
// followed it, an empty list for the others, and nothing of another
// business's ledger.
func TestReferenceTransactionSequences(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@sequences.example"})
		reward := func() string {
			return catID(a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 10,
				"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any))
		}
		kept, cancelled := reward(), reward()
		a.do(t, http.MethodDelete, "/transactions/"+cancelled, nil).want(t, http.StatusNoContent)

		for _, path := range []string{"/transactions?relationships=transaction_sequences",
			"/customers/" + ann.ID + "/transactions?relationships=transaction_sequences,transaction_details"} {
			var page struct{ Data []map[string]any }
			a.replay(t, "GET", path, "").want(t, http.StatusOK).decode(t, &page)
			seqs := map[string][]any{}
			var cancellation string
			for _, x := range page.Data {
				s, ok := x["transaction_sequences"].([]any)
				if !ok {
					t.Errorf("%s: entry %v has no transaction_sequences list", path, x)
				}
				seqs[catID(x)] = s
				if x["name"] == "Transaction Canceled - Clerk" {
					cancellation = catID(x)
				}
			}
			if len(seqs[kept]) != 0 || len(seqs[cancelled]) != 1 || cancellation == "" {
				t.Fatalf("%s: sequences %v, want one for %s only", path, seqs, cancelled)
			}
			s := seqs[cancelled][0].(map[string]any)
			if catID(map[string]any{"id": s["next_transaction_id"]}) != cancellation || catID(map[string]any{"id": s["initial_transaction_id"]}) != cancelled ||
				catID(at(s, "next_transaction").(map[string]any)) != cancellation || at(s, "next_transaction.points") != -10.0 {
				t.Errorf("%s: sequence %v, want %s followed by %s", path, s, cancelled, cancellation)
			}
		}

		other := e.owner(t, e.newBusiness(t, "Elsewhere"))
		var theirs struct{ Data []map[string]any }
		other.replay(t, "GET", "/transactions?relationships=transaction_sequences", "").want(t, http.StatusOK).decode(t, &theirs)
		if len(theirs.Data) != 0 {
			t.Errorf("another business's ledger shows %v", theirs.Data)
		}
		other.replay(t, "GET", "/customers/"+ann.ID+"/transactions?relationships=transaction_sequences", "").wantError(t, http.StatusNotFound)
	})
}
