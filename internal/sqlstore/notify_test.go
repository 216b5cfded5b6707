package sqlstore_test

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestAccessChangesHeardAcrossInstances: on PostgreSQL, a change another
// instance makes to what token lookups read (an app suspended, rules
// changed, a token revoked) ends this instance's cached lookup at once,
// long before its cache time (an hour here) is up; after the listening
// connection is lost, it reconnects and hears changes again.
func TestAccessChangesHeardAcrossInstances(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("instances share a PostgreSQL database; LOYALTY_TEST_POSTGRES=off")
	}
	db, other := openPair(t, testenv.DSN(t, sqlstore.Postgres), time.Hour)
	w := newSignInWorld(t, db)
	tok, err := w.signIn(cachePassword)
	if err != nil {
		t.Fatal(err)
	}
	waitListening(t, db)
	// heard waits until the cached lookup shows what another instance did.
	heard := func(what string, change func() error, shows func(oauth.Token, loyalty.Business) bool) {
		t.Helper()
		if got, b := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); shows(got, b) {
			t.Fatalf("%s: shown before it was made", what)
		}
		if err := change(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		start := time.Now()
		for !shows(w.lookup(t, tok.AccessToken, w.biz.ApplicationKey)) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s through another instance: not seen after %v (cache time 1h)", what, time.Since(start))
			}
			time.Sleep(time.Millisecond)
		}
		t.Logf("%s through another instance: seen after %v", what, time.Since(start))
	}
	heard("rules changed", func() error {
		_, b := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey)
		r := b.Loaded.Rules
		r.RewardRatio = 9
		return other.WithTx(ctx, func(tx loyalty.Tx) error { return tx.SaveRules(ctx, r) })
	}, func(_ oauth.Token, b loyalty.Business) bool { return b.Loaded.Rules.RewardRatio == 9 })
	heard("app suspended", func() error { return other.SetAppStatus(ctx, w.app.ClientID, oauth.AppSuspended) },
		func(got oauth.Token, _ loyalty.Business) bool { return got.AppStatus == oauth.AppSuspended })

	// The listening connection is cut: it comes back and hears again.
	if _, err := other.SQL().ExecContext(ctx, `SELECT pg_terminate_backend($1)`, db.ListenerPID()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	waitListening(t, db)
	heard("app approved again", func() error { return other.SetAppStatus(ctx, w.app.ClientID, oauth.AppApproved) },
		func(got oauth.Token, _ loyalty.Business) bool { return got.AppStatus == oauth.AppApproved })
}

// waitListening waits until db hears other instances' changes.
func waitListening(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	for start := time.Now(); !db.AccessListening(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the store does not listen for other instances' changes")
		}
	}
}

// TestListenDSN: with a listen DSN the listening connection goes there,
// not through the store's own pool (which may be a transaction-mode
// pooler, where LISTEN cannot hold a session): cutting that address stops
// the listening while the store itself still answers, and restoring it
// brings the changes of other instances back at once.
func TestListenDSN(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("listening is PostgreSQL's; LOYALTY_TEST_POSTGRES=off")
	}
	dsn := testenv.DSN(t, sqlstore.Postgres)
	db, proxy := openProxiedListener(t, dsn)
	db.TokenCacheTTL = time.Hour
	waitListening(t, db)

	proxy.Cut()
	for start := time.Now(); db.AccessListening(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("still listening with the listen DSN's address cut: the listener does not use it")
		}
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("the store goes through the listen DSN too: %v", err)
	}
	proxy.Restore()
	waitListening(t, db)

	other, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	w := newSignInWorld(t, db)
	tok, err := w.signIn(cachePassword)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); got.AppStatus != oauth.AppApproved {
		t.Fatalf("app status %v, want approved", got.AppStatus)
	}
	if err := other.SetAppStatus(ctx, w.app.ClientID, oauth.AppSuspended); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if got, _ := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); got.AppStatus == oauth.AppSuspended {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("a change through another instance not heard through the listen DSN (cache time 1h)")
		}
	}
}

// TestDeafListenerFallsBackToTTL: while the listener hears the channel
// (every instance's pings arrive), a cached lookup outlives the cache time
// (200 ms here): a change made behind the store's back, with no
// notification, stays unseen. Once the listening connection goes silent
// without closing (a network dropping packets), the store notices within
// seconds that it hears nothing and the lookup lives by the cache time
// again, so the change shows.
func TestDeafListenerFallsBackToTTL(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("listening is PostgreSQL's; LOYALTY_TEST_POSTGRES=off")
	}
	dsn := testenv.DSN(t, sqlstore.Postgres)
	db, proxy := openProxiedListener(t, dsn)
	db.TokenCacheTTL = 200 * time.Millisecond
	waitListening(t, db)
	w := newSignInWorld(t, db)
	tok, err := w.signIn(cachePassword)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); got.AppStatus != oauth.AppApproved {
		t.Fatalf("app status %v, want approved", got.AppStatus)
	}
	if _, err := db.SQL().ExecContext(ctx, `UPDATE apps SET status = $1 WHERE client_id = $2`, oauth.AppSuspended, w.app.ClientID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if got, _ := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); got.AppStatus != oauth.AppApproved {
		t.Fatalf("hearing the channel, the lookup was read again after the cache time (status %v)", got.AppStatus)
	}

	proxy.Silence()
	start := time.Now()
	for db.AccessListening() {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the listening connection silent for 10s still counts as hearing")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("silence noticed after %v", time.Since(start))
	if got, _ := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); got.AppStatus != oauth.AppSuspended {
		t.Fatalf("deaf, the lookup outlived the cache time (status %v)", got.AppStatus)
	}
	proxy.Restore()
	waitListening(t, db)
}

// openProxiedListener opens and migrates a PostgreSQL store on dsn whose
// listening connection goes through a proxy the test can cut or silence.
func openProxiedListener(t *testing.T, dsn string) (*sqlstore.DB, *testenv.Proxy) {
	t.Helper()
	listen, proxy := testenv.Proxied(t, dsn)
	db, err := sqlstore.OpenWith(ctx, dsn, sqlstore.Options{ListenDSN: listen})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db, proxy
}

// TestListenDSNRefused: a listen DSN on SQLite, or one that is not a
// PostgreSQL URL, is refused when the store opens.
func TestListenDSNRefused(t *testing.T) {
	sqlite := testenv.DSN(t, sqlstore.SQLite)
	if _, err := sqlstore.OpenWith(ctx, sqlite, sqlstore.Options{ListenDSN: "postgres://127.0.0.1/x"}); err == nil {
		t.Error("a listen DSN accepted on SQLite")
	}
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		return
	}
	if _, err := sqlstore.OpenWith(ctx, testenv.DSN(t, sqlstore.Postgres), sqlstore.Options{ListenDSN: "listen.db"}); err == nil {
		t.Error("a SQLite file accepted as the listen DSN")
	}
}

// TestSimpleProtocolRefused: pgx's simple protocol (client-side quoting)
// is refused when the store opens; exec mode, the one for transaction
// poolers, is accepted (the whole store suite runs in it in .ci/run).
func TestSimpleProtocolRefused(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("pgx's modes are PostgreSQL's; LOYALTY_TEST_POSTGRES=off")
	}
	dsn := testenv.DSN(t, sqlstore.Postgres)
	mode := func(m string) string {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("default_query_exec_mode", m)
		u.RawQuery = q.Encode()
		return u.String()
	}
	if db, err := sqlstore.Open(ctx, mode("simple_protocol")); err == nil {
		db.Close()
		t.Error("default_query_exec_mode=simple_protocol accepted")
	}
	db, err := sqlstore.Open(ctx, mode("exec"))
	if err != nil {
		t.Fatalf("exec mode refused: %v", err)
	}
	db.Close()
}

// TestAccessChangesHeardAcrossProcesses: on SQLite, a change another
// process makes to what token lookups read (an admin command beside the
// service; here a second store on the same file) ends this store's cached
// lookup within a fraction of a second, long before its cache time (an
// hour here).
func TestAccessChangesHeardAcrossProcesses(t *testing.T) {
	db, other := openPair(t, testenv.DSN(t, sqlstore.SQLite), time.Hour)
	w := newSignInWorld(t, db)
	tok, err := w.signIn(cachePassword)
	if err != nil {
		t.Fatal(err)
	}
	waitListening(t, db)
	if got, _ := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); got.AppStatus != oauth.AppApproved {
		t.Fatalf("app status %v, want approved", got.AppStatus)
	}
	if err := other.SetAppStatus(ctx, w.app.ClientID, oauth.AppSuspended); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		if got, _ := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); got.AppStatus == oauth.AppSuspended {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("a change through another process not seen after 5s (cache time 1h)")
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("seen after %v", time.Since(start))
}
