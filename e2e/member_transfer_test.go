package e2e

import (
	"net/http"
	"testing"
)

// transferView is a transfer as the user API shows it.
type transferView struct {
	ID        string  `json:"id"`
	Direction string  `json:"direction"`
	Points    int64   `json:"points"`
	State     string  `json:"state"`
	To        *string `json:"to"`
	Receiver  *struct {
		ID string `json:"id"`
	} `json:"receiver"`
	ExpiresAt *string `json:"expires_at"`
}

// TestMemberTransfers: a member gives points to another member at once;
// to someone not yet a member the points wait, held from both, and
// arrive when that person joins; the sender recalls points still waiting;
// held points nobody claims come back after 30 days (on the sandbox
// clock); beyond the balance, to oneself and over the business's daily
// limit are refused by field and change nothing.
func TestMemberTransfers(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		sb := e.sandboxBusiness(t)
		owner := e.owner(t, sb)
		app := e.userApp(t)
		ann := e.register(t, sb.Key, map[string]any{"email": "ann@friends.example", "pin_code": 1111})
		bob := e.register(t, sb.Key, map[string]any{"email": "bob@friends.example", "pin_code": 2222})
		a := e.asUser(t, app, sb.Key, "ann@friends.example", "1111")
		owner.reward(t, ann.ID, 100)
		points := func(id string) float64 { return owner.pointsBalance(t, id)["points"].(float64) }

		var x transferView
		a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 30, "to": map[string]any{"email": "BOB@friends.example"},
			"message": "Coffee on me"}).want(t, http.StatusOK).data(t, &x)
		if x.State != "completed" || x.Direction != "sent" || x.Receiver == nil || x.Receiver.ID != bob.ID {
			t.Fatalf("transfer to a member %+v", x)
		}
		if points(ann.ID) != 70 || points(bob.ID) != 30 {
			t.Errorf("balances %v and %v, want 70 and 30", points(ann.ID), points(bob.ID))
		}
		var hist struct {
			Data []struct {
				Type float64 `json:"transaction_type"`
			}
		}
		owner.get(t, "/customers/"+bob.ID+"/transactions").want(t, http.StatusOK).decode(t, &hist)
		if len(hist.Data) != 1 || hist.Data[0].Type != 59 {
			t.Errorf("the receiver's ledger %+v, want one entry 59", hist.Data)
		}

		t.Run("refusals change nothing", func(t *testing.T) {
			a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 500, "to": map[string]any{"email": "bob@friends.example"}}).
				wantFields(t, "points")
			a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 5, "to": map[string]any{"email": "ann@friends.example"}}).
				wantFields(t, "to")
			a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 5, "to": map[string]any{"email": "not an address"}}).
				wantFields(t, "to.email")
			a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 5}).wantFields(t, "to")
			owner.do(t, http.MethodPatch, "/rules", map[string]any{"transfer_max_points_per_day": 40}).want(t, http.StatusOK)
			a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 11, "to": map[string]any{"email": "bob@friends.example"}}).
				wantFields(t, "points")
			owner.do(t, http.MethodPatch, "/rules", map[string]any{"transfer_max_points_per_day": 0}).want(t, http.StatusOK)
			if points(ann.ID) != 70 || points(bob.ID) != 30 {
				t.Errorf("balances after refusals %v and %v", points(ann.ID), points(bob.ID))
			}
		})

		t.Run("held for someone who joins", func(t *testing.T) {
			a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 20, "to": map[string]any{"email": "cid@friends.example"}}).
				want(t, http.StatusOK).data(t, &x)
			if x.State != "pending" || x.ExpiresAt == nil || x.To == nil || *x.To != "cid@friends.example" {
				t.Fatalf("held transfer %+v", x)
			}
			if points(ann.ID) != 50 {
				t.Errorf("sender's balance %v while held, want 50", points(ann.ID))
			}
			if e.mailCount(t, "cid@friends.example") != 1 {
				t.Errorf("the invitation was not sent")
			}
			cid := e.register(t, sb.Key, map[string]any{"email": "cid@friends.example", "pin_code": 3333})
			if points(cid.ID) != 20 {
				t.Errorf("the new member has %v, want the 20 waiting", points(cid.ID))
			}
			var list []transferView
			a.get(t, "/users/me/transfers").want(t, http.StatusOK).data(t, &list)
			if len(list) != 2 || list[0].State != "completed" || list[0].Receiver == nil || list[0].Receiver.ID != cid.ID {
				t.Errorf("the sender's transfers %+v", list)
			}
			c := e.asUser(t, app, sb.Key, "cid@friends.example", "3333")
			c.get(t, "/users/me/transfers").want(t, http.StatusOK).data(t, &list)
			if len(list) != 1 || list[0].Direction != "received" || list[0].To != nil {
				t.Errorf("the receiver's transfers %+v", list)
			}
		})

		t.Run("recalled, and returned after 30 days", func(t *testing.T) {
			a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 15, "to": map[string]any{"email": "dee@friends.example"}}).
				want(t, http.StatusOK).data(t, &x)
			b := e.asUser(t, app, sb.Key, "bob@friends.example", "2222")
			b.do(t, http.MethodPost, "/users/me/transfers/"+x.ID+"/recall", nil).want(t, http.StatusNotFound)
			a.do(t, http.MethodPost, "/users/me/transfers/"+x.ID+"/recall", nil).want(t, http.StatusOK).data(t, &x)
			if x.State != "recalled" || points(ann.ID) != 50 {
				t.Errorf("recalled %+v, balance %v; want 50 back", x, points(ann.ID))
			}
			a.do(t, http.MethodPost, "/users/me/transfers/"+x.ID+"/recall", nil).wantFields(t, "id")

			a.do(t, http.MethodPost, "/users/me/transfers", map[string]any{"points": 25, "to": map[string]any{"phone": "514 555 0177",
				"country_code": "CA"}}).want(t, http.StatusOK).data(t, &x)
			if points(ann.ID) != 25 {
				t.Fatalf("balance %v with 25 held, want 25", points(ann.ID))
			}
			owner.moveClock(t, map[string]any{"advance": "P31D"})
			if points(ann.ID) != 50 {
				t.Errorf("balance %v after the hold ended, want 50", points(ann.ID))
			}
			var list []transferView
			a.get(t, "/users/me/transfers").want(t, http.StatusOK).data(t, &list)
			if list[0].ID != x.ID || list[0].State != "returned" {
				t.Errorf("after 30 days %+v, want returned", list[0])
			}
			// Joining after it came back gives nothing.
			dee := e.register(t, sb.Key, map[string]any{"phone": "514 555 0177", "country_code": "CA", "pin_code": 4444})
			if points(dee.ID) != 0 {
				t.Errorf("a late joiner got %v", points(dee.ID))
			}
		})
	})
}
