package e2e

import (
	"context"
	"database/sql"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// wantUnavailable fails unless the response is a 503 in the business-API
// error shape (the user API's too) with a Retry-After of a few seconds.
func (r *result) wantUnavailable(t *testing.T) {
	t.Helper()
	r.wantError(t, http.StatusServiceUnavailable)
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 10 {
		t.Errorf("%s: Retry-After %q, want a few seconds", r.what, r.Header.Get("Retry-After"))
	}
}

// TestDatabaseOutage: while the database cannot be reached, the APIs
// answer 503 with Retry-After, never 500, and /readyz says so; once it is
// back, the same requests work, and nothing was half-written meanwhile.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()

	t.Run("postgres connection cut", func(t *testing.T) {
		if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
			t.Skip("PostgreSQL is off")
		}
		t.Parallel()
		dsn, proxy := testenv.Proxied(t, testenv.DSN(t, sqlstore.Postgres))
		e := startOn(t, dsn, roomy)
		key := e.biz.Key
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@x.example"})
		app := e.userApp(t)
		e.register(t, key, map[string]any{"email": "zoe@example.com", "pin_code": 2468})
		u := e.asUser(t, app, key, "zoe@example.com", "2468")
		reward := map[string]any{"intent": "reward", "points": 10, "customer": map[string]any{"id": ann.ID}}
		offer := "/offers/" + catID(a.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 3, "title": "Bonus", "points": 5}))
		// Read once, so that the token's lookup is cached and the next
		// read meets the outage in the handler's own query.
		a.get(t, offer).want(t, http.StatusOK)

		proxy.Cut()
		a.get(t, offer).wantUnavailable(t)
		a.get(t, "/customers").wantUnavailable(t)
		a.get(t, "/customers/"+ann.ID).wantUnavailable(t)
		a.do(t, http.MethodPost, "/customers", map[string]any{"email": "bob@x.example"}).wantUnavailable(t)
		req := a.request(t, http.MethodPost, "/transactions", reward)
		req.Header.Set("Idempotency-Key", "outage-1")
		e.send(t, req).wantUnavailable(t)
		e.postToken(t, key, e.passwordForm(e.biz)).wantUnavailable(t)
		u.get(t, "/users/me").wantUnavailable(t)
		e.keyOnly(key).do(t, http.MethodPost, "/users", map[string]any{"email": "bob@example.com"}).wantUnavailable(t)
		e.get(t, "/readyz").want(t, http.StatusServiceUnavailable)

		proxy.Restore()
		// The pool connects again; a request may still meet a connection
		// that was cut (another 503) before it does.
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := a.get(t, "/customers/"+ann.ID)
			if r.Status == http.StatusOK {
				break
			}
			r.wantUnavailable(t)
			if time.Now().After(deadline) {
				t.Fatal("the API did not come back after the database did")
			}
			time.Sleep(50 * time.Millisecond)
		}
		e.get(t, "/readyz").want(t, http.StatusOK)
		if l := a.list(t, "email=eq|bob@x.example"); l.Meta.Total != 0 {
			t.Errorf("a customer refused with 503 exists: %v", l.ids())
		}
		req = a.request(t, http.MethodPost, "/transactions", reward)
		req.Header.Set("Idempotency-Key", "outage-1")
		var tr struct {
			Data struct{ Balance struct{ Points int64 } }
		}
		e.send(t, req).want(t, http.StatusOK).decode(t, &tr)
		if tr.Data.Balance.Points != 10 {
			t.Errorf("balance %d after the retried reward, want 10", tr.Data.Balance.Points)
		}
	})

	t.Run("sqlite write lock held", func(t *testing.T) {
		t.Parallel()
		path := testenv.DSN(t, sqlstore.SQLite)
		e := startOn(t, path+"?_pragma=busy_timeout(300)", roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@x.example"})
		// Another process (a backup, an admin command) holds the lock. It
		// waits for the lock as such a process would: the service's
		// background writers (the dashboard's follower) may hold it a moment.
		other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		conn, err := other.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
			t.Fatalf("take the write lock: %v", err)
		}
		a.do(t, http.MethodPost, "/customers", map[string]any{"email": "bob@x.example"}).wantUnavailable(t)
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 10,
			"customer": map[string]any{"id": ann.ID}}).wantUnavailable(t)
		// Reads go on (WAL).
		a.get(t, "/customers/"+ann.ID).want(t, http.StatusOK)
		if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
			t.Fatal(err)
		}
		a.do(t, http.MethodPost, "/customers", map[string]any{"email": "bob@x.example"}).want(t, http.StatusOK)
	})
}
