package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// event is an event of GET /events.
type event struct {
	ID         string          `json:"id"`
	Sequence   int64           `json:"sequence"`
	Type       string          `json:"type"`
	BusinessID string          `json:"business_id"`
	CreatedAt  string          `json:"created_at"`
	Data       json.RawMessage `json:"data"`
}

// eventPage is the body of GET /events.
type eventPage struct {
	Data   []event `json:"data"`
	Cursor struct {
		Count   int    `json:"count"`
		Next    int64  `json:"next"`
		NextURI string `json:"next_uri"`
	} `json:"cursor"`
}

// feed follows a business's events the way an integrator does: after the
// last sequence it has.
type feed struct {
	c    *client
	last int64
	seen []event
}

// next reads the events after the last one read, checking their numbers.
func (f *feed) next(t *testing.T) []event {
	t.Helper()
	var p eventPage
	f.c.get(t, fmt.Sprintf("/events?after=%d", f.last)).want(t, http.StatusOK).decode(t, &p)
	for _, e := range p.Data {
		if e.Sequence != f.last+1 {
			t.Fatalf("event %s has sequence %d after %d", e.Type, e.Sequence, f.last)
		}
		f.last = e.Sequence
	}
	if p.Cursor.Next != f.last || p.Cursor.Count != len(p.Data) {
		t.Fatalf("cursor %+v after reading to %d", p.Cursor, f.last)
	}
	f.seen = append(f.seen, p.Data...)
	return p.Data
}

// expect reads what the last change wrote and checks its event types, in order.
func (f *feed) expect(t *testing.T, change string, types ...string) []event {
	t.Helper()
	got := f.next(t)
	var names []string
	for _, e := range got {
		names = append(names, e.Type)
	}
	if !slices.Equal(names, types) {
		t.Fatalf("%s wrote events %v, want %v", change, names, types)
	}
	return got
}

// dataOf decodes an event's data.
func dataOf(t *testing.T, e event) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatalf("%s data: %v", e.Type, err)
	}
	return m
}

// TestEventFeed drives every change that writes an event through the API
// and reads GET /events after each: each change writes its events (one per
// change it makes, in order), a refused one writes none, the data is the
// resource as the API shows it, and the feed read again from 0 in small
// pages gives the same events exactly once, in order. Another business's
// feed holds none of them.
func TestEventFeed(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		f := &feed{c: a}
		f.expect(t, "nothing yet")

		c := a.createCustomer(t, map[string]any{"email": "eve@events.example"})
		if got := dataOf(t, f.expect(t, "create", "customer.created")[0]); got["id"] != c.ID || got["email"] != "eve@events.example" {
			t.Errorf("customer.created data %v", got)
		}
		a.do(t, http.MethodPut, "/customers/"+c.ID, map[string]any{"first_name": "Eve"}).want(t, http.StatusOK)
		if got := dataOf(t, f.expect(t, "update", "customer.updated")[0]); got["first_name"] != "Eve" {
			t.Errorf("customer.updated data %v", got)
		}
		a.do(t, http.MethodPut, "/customers/"+c.ID, map[string]any{"enabled": false}).want(t, http.StatusOK)
		f.expect(t, "disable", "customer.disabled")
		a.do(t, http.MethodPut, "/customers/"+c.ID, map[string]any{"enabled": true, "last_name": "Ng"}).want(t, http.StatusOK)
		f.expect(t, "enable and rename", "customer.updated", "customer.enabled")

		reward := a.catTransact(t, c.ID, map[string]any{"intent": "reward", "points": 100})
		got := dataOf(t, f.expect(t, "reward", "transaction.created")[0])
		if got["id"] != reward["id"] || got["points"] != 100.0 || got["customer"].(map[string]any)["id"] != c.ID {
			t.Errorf("transaction.created data %v for %v", got, reward)
		}
		a.catTransactFails(t, c.ID, map[string]any{"intent": "redeem", "points": 5000}).want(t, http.StatusUnprocessableEntity)
		f.expect(t, "a refused redeem")

		a.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%v", reward["id"]), nil).want(t, http.StatusNoContent)
		if ev := f.expect(t, "cancel", "transaction.created", "transaction.cancelled"); dataOf(t, ev[1])["id"] != reward["id"] {
			t.Errorf("transaction.cancelled data %s", ev[1].Data)
		}

		a.catTransact(t, c.ID, map[string]any{"intent": "reward", "points": 50})
		f.expect(t, "reward", "transaction.created")
		offer := a.catOffer(t, map[string]any{"type_id": 10, "title": "$5 off", "discount_value": 5, "points": 5})
		issued := a.catTransact(t, c.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(offer)}})
		ev := f.expect(t, "get_coupon", "coupon.issued", "transaction.created")
		coupon := dataOf(t, ev[0])
		if coupon["id"] != issued["coupon"].(map[string]any)["id"] || coupon["customer"].(map[string]any)["id"] != c.ID {
			t.Errorf("coupon.issued data %v", coupon)
		}
		a.catTransact(t, c.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": coupon["id"]}})
		f.expect(t, "claim_coupon", "coupon.claimed", "transaction.created")

		u := e.register(t, e.biz.Key, map[string]any{"email": "ula@events.example", "pin_code": 2468})
		ev = f.expect(t, "register", "customer.created", "user.created")
		if dataOf(t, ev[1])["id"] != u.ID {
			t.Errorf("user.created data %s", ev[1].Data)
		}
		token := e.waitMessage(t, "ula@events.example", 1).line(t, "Token")
		e.keyOnly(e.biz.Key).do(t, http.MethodPost, "/users/credentials/verification",
			map[string]any{"token": token, "email": "ula@events.example"}).want(t, http.StatusOK)
		f.expect(t, "verify", "user.verified")

		a.do(t, http.MethodDelete, "/customers/"+c.ID, nil).want(t, http.StatusNoContent)
		f.expect(t, "delete", "customer.deleted")

		t.Run("read again from 0 in pages of 2, by the cursor", func(t *testing.T) {
			var all []event
			next := "/events?after=0&per_page=2"
			for {
				var p eventPage
				a.get(t, next).want(t, http.StatusOK).decode(t, &p)
				if len(p.Data) == 0 {
					break
				}
				all = append(all, p.Data...)
				if !strings.HasPrefix(p.Cursor.NextURI, "events?") {
					t.Fatalf("next_uri %q", p.Cursor.NextURI)
				}
				next = "/" + p.Cursor.NextURI
			}
			if len(all) != len(f.seen) {
				t.Fatalf("read %d events again, %d the first time", len(all), len(f.seen))
			}
			for i := range all {
				if all[i].ID != f.seen[i].ID || all[i].Sequence != int64(i+1) || all[i].BusinessID != e.biz.ID {
					t.Fatalf("event %d: %+v, first read %+v", i, all[i], f.seen[i])
				}
			}
		})

		t.Run("type filter", func(t *testing.T) {
			var p eventPage
			a.get(t, "/events?type=in|coupon.issued,coupon.claimed").want(t, http.StatusOK).decode(t, &p)
			if len(p.Data) != 2 || p.Data[0].Type != "coupon.issued" || p.Data[1].Type != "coupon.claimed" {
				t.Errorf("in filter: %+v", p.Data)
			}
			a.get(t, "/events?type=not_in|transaction.created&per_page=100").want(t, http.StatusOK).decode(t, &p)
			for _, ev := range p.Data {
				if ev.Type == "transaction.created" {
					t.Errorf("not_in filter gave %s", ev.Type)
				}
			}
		})

		t.Run("another business sees none of it", func(t *testing.T) {
			other := e.owner(t, e.newBusiness(t, "Elsewhere"))
			var p eventPage
			other.get(t, "/events").want(t, http.StatusOK).decode(t, &p)
			if len(p.Data) != 0 {
				t.Errorf("another business read %d events", len(p.Data))
			}
		})

		t.Run("bad queries", func(t *testing.T) {
			a.get(t, "/events?after=-1").wantFields(t, "after")
			a.get(t, "/events?cursor=x").wantFields(t, "cursor")
			a.get(t, "/events?per_page=101").wantFields(t, "per_page")
			a.get(t, "/events?type=nope").wantError(t, http.StatusBadRequest, "nope")
			a.get(t, "/events?page=2").wantError(t, http.StatusBadRequest)
			a.get(t, "/events?type=gt|x").wantError(t, http.StatusBadRequest)
		})
	})
}
