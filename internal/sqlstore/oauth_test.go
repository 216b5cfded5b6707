package sqlstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

var tokenNow = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

func insertApp(tb testing.TB, db *sqlstore.DB, status string) oauth.App {
	tb.Helper()
	a := oauth.App{ID: loyalty.NewID(), ClientID: loyalty.NewID(), SecretHash: randomBytes(32), Name: "Till",
		Description: "Point of sale", RedirectURI: "https://till.example/cb", GrantType: oauth.GrantPassword,
		API: oauth.APIBusiness, Status: status, CreatedAt: tokenNow}
	if err := db.InsertApp(ctx, &a); err != nil {
		tb.Fatalf("InsertApp: %v", err)
	}
	return a
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// insertToken stores a token pair of app for business b; chain "" starts a new chain.
func insertToken(tb testing.TB, db *sqlstore.DB, app oauth.App, b testBusiness, chain string) oauth.Token {
	tb.Helper()
	t := oauth.Token{ID: loyalty.NewID(), ChainID: chain, AppID: app.ID, TenantID: b.BusinessID, BusinessID: b.BusinessID,
		SubjectKind: "owner", SubjectID: b.OwnerID, Scope: oauth.ScopeAdmin,
		AccessHash: randomBytes(32), RefreshHash: randomBytes(32),
		AccessExpiresAt: tokenNow.Add(oauth.AccessTTL), RefreshExpiresAt: tokenNow.Add(oauth.RefreshTTL), CreatedAt: tokenNow}
	if t.ChainID == "" {
		t.ChainID = t.ID
	}
	if err := db.InsertToken(ctx, &t); err != nil {
		tb.Fatalf("InsertToken: %v", err)
	}
	return t
}

// access reads a token by its access hash, failing the test on error.
func access(tb testing.TB, db *sqlstore.DB, tok oauth.Token) oauth.Token {
	tb.Helper()
	got, err := db.Access(ctx, tok.AccessHash)
	if err != nil {
		tb.Fatalf("Access: %v", err)
	}
	return got
}

func TestApps(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		a := insertApp(t, db, oauth.AppPending)
		got, err := db.AppByClientID(ctx, a.ClientID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.CreatedAt.Equal(a.CreatedAt) || !bytes.Equal(got.SecretHash, a.SecretHash) {
			t.Errorf("AppByClientID: created %v, hash %x; want %v, %x", got.CreatedAt, got.SecretHash, a.CreatedAt, a.SecretHash)
		}
		got.CreatedAt, got.SecretHash = a.CreatedAt, a.SecretHash
		if got.ID != a.ID || got.Name != a.Name || got.Description != a.Description || got.RedirectURI != a.RedirectURI ||
			got.GrantType != a.GrantType || got.API != a.API || got.Status != oauth.AppPending {
			t.Errorf("AppByClientID = %+v, want %+v", got, a)
		}

		if err := db.SetAppStatus(ctx, a.ClientID, oauth.AppApproved); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.AppByClientID(ctx, a.ClientID); got.Status != oauth.AppApproved {
			t.Errorf("status after approval = %q", got.Status)
		}
		wantCode(t, db.SetAppStatus(ctx, loyalty.NewID(), oauth.AppApproved), loyalty.ENotFound)
		_, err = db.AppByClientID(ctx, loyalty.NewID())
		wantCode(t, err, loyalty.ENotFound)

		dup := a
		dup.ID = loyalty.NewID()
		if err := db.InsertApp(ctx, &dup); err == nil {
			t.Error("a second app with the same client id was stored")
		}
	})
}

func TestTokenInsertAndAccess(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		app := insertApp(t, db, oauth.AppApproved)
		tok := insertToken(t, db, app, b, "")

		got := access(t, db, tok)
		if !got.AccessExpiresAt.Equal(tok.AccessExpiresAt) || !got.RefreshExpiresAt.Equal(tok.RefreshExpiresAt) || !got.CreatedAt.Equal(tok.CreatedAt) {
			t.Errorf("times: %v %v %v", got.AccessExpiresAt, got.RefreshExpiresAt, got.CreatedAt)
		}
		if got.ID != tok.ID || got.ChainID != tok.ID || got.AppID != app.ID || got.AppStatus != oauth.AppApproved ||
			got.TenantID != b.BusinessID || got.BusinessID != b.BusinessID || got.SubjectKind != "owner" ||
			got.SubjectID != b.OwnerID || got.Scope != oauth.ScopeAdmin || got.Revoked || got.Spent {
			t.Errorf("Access = %+v", got)
		}
		_, err := db.Access(ctx, randomBytes(32))
		wantCode(t, err, loyalty.ENotFound)
		// The refresh token is not an access token.
		_, err = db.Access(ctx, tok.RefreshHash)
		wantCode(t, err, loyalty.ENotFound)

		// The app's status is read at each access.
		if err := db.SetAppStatus(ctx, app.ClientID, oauth.AppSuspended); err != nil {
			t.Fatal(err)
		}
		if got := access(t, db, tok); got.AppStatus != oauth.AppSuspended {
			t.Errorf("AppStatus after suspension = %q", got.AppStatus)
		}

		// A user token has no business.
		user := oauth.Token{ID: loyalty.NewID(), AppID: app.ID, TenantID: b.BusinessID, SubjectKind: "user",
			SubjectID: loyalty.NewID(), Scope: oauth.ScopeUser, AccessHash: randomBytes(32), RefreshHash: randomBytes(32),
			AccessExpiresAt: tokenNow, RefreshExpiresAt: tokenNow, CreatedAt: tokenNow}
		user.ChainID = user.ID
		if err := db.InsertToken(ctx, &user); err != nil {
			t.Fatal(err)
		}
		if got := access(t, db, user); got.BusinessID != "" || got.SubjectKind != "user" {
			t.Errorf("user token = %+v", got)
		}
	})
}

func TestAccessForKey(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		app := insertApp(t, db, oauth.AppApproved)
		tok := insertToken(t, db, app, b, "")
		got, err := db.AccessForKey(ctx, tok.AccessHash, b.ApplicationKey)
		if err != nil || got.ID != tok.ID || got.Key.Key != b.ApplicationKey || got.Key.BusinessID != b.BusinessID || got.Key.CoalitionID != "" {
			t.Errorf("AccessForKey(business key) = %+v, %v", got, err)
		}
		got, err = db.AccessForKey(ctx, tok.AccessHash, "no-such-key")
		if err != nil || got.ID != tok.ID || got.Key != (loyalty.Tenant{}) {
			t.Errorf("AccessForKey(unknown key) = %+v, %v; want the token with a zero Key", got, err)
		}
		if err := db.RotateKey(ctx, loyalty.Tenant{BusinessID: b.BusinessID}, "new-key"); err != nil {
			t.Fatal(err)
		}
		if got, err := db.AccessForKey(ctx, tok.AccessHash, b.ApplicationKey); err != nil || got.Key != (loyalty.Tenant{}) {
			t.Errorf("AccessForKey(rotated key) = %+v, %v; want a zero Key", got.Key, err)
		}
		_, err = db.AccessForKey(ctx, randomBytes(32), "new-key")
		wantCode(t, err, loyalty.ENotFound)
	})
}

func TestSpendRefresh(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		app := insertApp(t, db, oauth.AppApproved)
		first := insertToken(t, db, app, b, "")
		bystander := insertToken(t, db, app, b, "")

		spent, err := db.SpendRefresh(ctx, first.RefreshHash, tokenNow.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if spent.ID != first.ID || spent.ChainID != first.ChainID || spent.Spent || spent.Revoked || spent.SubjectID != b.OwnerID {
			t.Errorf("first use = %+v, want the token, not spent, not revoked", spent)
		}
		if got := access(t, db, first); !got.Revoked || !got.Spent {
			t.Errorf("after its refresh: revoked %v, spent %v; want both", got.Revoked, got.Spent)
		}

		// The client got a new pair in the same chain.
		second := insertToken(t, db, app, b, first.ChainID)
		if got := access(t, db, second); got.Revoked {
			t.Fatal("the new token is revoked before any reuse")
		}

		// The old refresh token comes back: it was stolen; the chain dies.
		again, err := db.SpendRefresh(ctx, first.RefreshHash, tokenNow.Add(2*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if !again.Spent || again.ID != first.ID {
			t.Errorf("second use = %+v, want Spent", again)
		}
		if got := access(t, db, second); !got.Revoked {
			t.Error("reusing a spent refresh token did not revoke the newer token of its chain")
		}
		if got := access(t, db, bystander); got.Revoked || got.Spent {
			t.Errorf("a token of another chain was touched: %+v", got)
		}
		// The newer token's refresh is dead too: using it finds it revoked.
		third, err := db.SpendRefresh(ctx, second.RefreshHash, tokenNow.Add(3*time.Hour))
		if err != nil || !third.Revoked {
			t.Errorf("refresh of the revoked newer token = %+v, %v; want Revoked", third, err)
		}

		// Refresh only reads: it finds the token by its refresh hash and spends nothing.
		if got, err := db.Refresh(ctx, bystander.RefreshHash); err != nil || got.ID != bystander.ID || got.Spent || got.Revoked {
			t.Errorf("Refresh = %+v, %v", got, err)
		}
		if got := access(t, db, bystander); got.Spent || got.Revoked {
			t.Errorf("Refresh changed the token: %+v", got)
		}
		_, err = db.Refresh(ctx, bystander.AccessHash)
		wantCode(t, err, loyalty.ENotFound)

		_, err = db.SpendRefresh(ctx, randomBytes(32), tokenNow)
		wantCode(t, err, loyalty.ENotFound)
		_, err = db.SpendRefresh(ctx, bystander.AccessHash, tokenNow)
		wantCode(t, err, loyalty.ENotFound)
	})
}

func TestSpendRefreshConcurrent(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		app := insertApp(t, db, oauth.AppApproved)
		tok := insertToken(t, db, app, b, "")

		const n = 20
		warmPool(t, db, n)
		results := make([]oauth.Token, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				results[i], errs[i] = db.SpendRefresh(ctx, tok.RefreshHash, tokenNow.Add(time.Minute))
			})
		}
		close(start)
		wg.Wait()
		winners := 0
		for i := range n {
			if errs[i] != nil {
				t.Errorf("goroutine %d: %v", i, errs[i])
				continue
			}
			if results[i].ID != tok.ID {
				t.Errorf("goroutine %d got token %s", i, results[i].ID)
			}
			if !results[i].Spent {
				winners++
			}
		}
		if winners != 1 {
			t.Errorf("%d of %d concurrent uses of one refresh token succeeded, want exactly 1", winners, n)
		}
		if got := access(t, db, tok); !got.Revoked || !got.Spent {
			t.Errorf("after the race: %+v", got)
		}
	})
}

// warmPool opens up to n connections at once and returns them to the pool
// idle, so that goroutines racing next do not queue behind connection set-up.
func warmPool(tb testing.TB, db *sqlstore.DB, n int) {
	tb.Helper()
	if db.Dialect() != sqlstore.Postgres {
		return // SQLite serializes writers anyway, and Conn would wait for its capped pool
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var conns []*sql.Conn
	for range n {
		c, err := db.SQL().Conn(wctx)
		if err != nil {
			break // the pool is full; what we have is enough
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}
}

func TestRecordLoginLocksOwner(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		fail := func(n int) {
			t.Helper()
			for range n {
				if err := db.RecordLogin(ctx, "owner", b.OwnerID, false, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		locked := func() time.Time {
			t.Helper()
			l, err := db.OwnerLogin(ctx, b.OwnerEmail)
			if err != nil {
				t.Fatal(err)
			}
			return l.LockedUntil
		}

		fail(oauth.MaxFailures - 1)
		if got := locked(); !got.IsZero() {
			t.Fatalf("locked until %v after %d failures, want not locked", got, oauth.MaxFailures-1)
		}
		// A success clears the count: as many failures again do not lock.
		if err := db.RecordLogin(ctx, "owner", b.OwnerID, true, now); err != nil {
			t.Fatal(err)
		}
		fail(oauth.MaxFailures - 1)
		if got := locked(); !got.IsZero() {
			t.Fatalf("a success did not clear the failure count: locked until %v", got)
		}
		fail(1)
		if got, want := locked(), now.Add(oauth.LockFor); !got.Equal(want) {
			t.Fatalf("after %d failures in a row: locked until %v, want %v", oauth.MaxFailures, got, want)
		}
	})
}

func TestRecordLoginLocksUser(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		c := createCustomer(t, db, b.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("ann@example.com")})
		setPIN(t, db, c.ID, "pin-hash")
		now := time.Now().UTC().Truncate(time.Second)
		for range oauth.MaxFailures {
			if err := db.RecordLogin(ctx, "user", c.ID, false, now); err != nil {
				t.Fatal(err)
			}
		}
		l, err := db.UserLogin(ctx, "ann@example.com", []string{b.BusinessID})
		if err != nil {
			t.Fatal(err)
		}
		if want := now.Add(oauth.LockFor); !l.LockedUntil.Equal(want) {
			t.Errorf("user locked until %v, want %v", l.LockedUntil, want)
		}
		// Locking a user does not lock the owner, and the other way round.
		if ol, err := db.OwnerLogin(ctx, b.OwnerEmail); err != nil || !ol.LockedUntil.IsZero() {
			t.Errorf("owner = %+v, %v; want not locked", ol, err)
		}
	})
}

// setPIN stores a PIN hash for a person, as the PIN flows do.
func setPIN(tb testing.TB, db *sqlstore.DB, userID, hash string) {
	tb.Helper()
	if _, err := db.SQL().ExecContext(ctx, `UPDATE users SET pin_hash = $1 WHERE id = $2`, hash, userID); err != nil {
		tb.Fatal(err)
	}
}

func TestOwnerAndUserLogin(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		a, b := createBusiness(t, db, ""), createBusiness(t, db, "")
		_, err := db.OwnerLogin(ctx, "nobody@shop.example")
		wantCode(t, err, loyalty.ENotFound)
		if l, err := db.OwnerLogin(ctx, b.OwnerEmail); err != nil || l.Kind != "owner" || l.ID != b.OwnerID || l.BusinessID != b.BusinessID {
			t.Errorf("OwnerLogin = %+v, %v", l, err)
		}

		ann := createCustomer(t, db, a.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("ann@example.com"),
			Phone: loyalty.Some("+16502530000")})
		setPIN(t, db, ann.ID, "ann-pin-hash")
		noPIN := createCustomer(t, db, a.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("bob@example.com")})

		for _, name := range []string{"ann@example.com", "+16502530000"} {
			l, err := db.UserLogin(ctx, name, []string{b.BusinessID, a.BusinessID})
			if err != nil || l.Kind != "user" || l.ID != ann.ID || l.Hash != "ann-pin-hash" || l.BusinessID != "" || !l.LockedUntil.IsZero() {
				t.Errorf("UserLogin(%q) = %+v, %v", name, l, err)
			}
		}
		if l, err := db.UserLogin(ctx, "bob@example.com", []string{a.BusinessID}); err != nil || l.ID != noPIN.ID || l.Hash != "" {
			t.Errorf("a person without a PIN = %+v, %v; want found with an empty hash", l, err)
		}

		// Not a customer of these businesses, or no businesses at all.
		_, err = db.UserLogin(ctx, "ann@example.com", []string{b.BusinessID})
		wantCode(t, err, loyalty.ENotFound)
		_, err = db.UserLogin(ctx, "ann@example.com", nil)
		wantCode(t, err, loyalty.ENotFound)
		_, err = db.UserLogin(ctx, "nobody@example.com", []string{a.BusinessID})
		wantCode(t, err, loyalty.ENotFound)
		// An owner is not a user.
		_, err = db.UserLogin(ctx, a.OwnerEmail, []string{a.BusinessID})
		wantCode(t, err, loyalty.ENotFound)

		// A deleted membership does not sign in.
		biz, err := db.Business(ctx, a.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		svc := loyalty.CustomerService{Store: db}
		if err := svc.Delete(ctx, biz, ann.ID); err != nil {
			t.Fatal(err)
		}
		_, err = db.UserLogin(ctx, "ann@example.com", []string{a.BusinessID})
		wantCode(t, err, loyalty.ENotFound)
		// ... but the same person's membership elsewhere does.
		createCustomer(t, db, b.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("ann@example.com")})
		if l, err := db.UserLogin(ctx, "ann@example.com", []string{a.BusinessID, b.BusinessID}); err != nil || l.ID != ann.ID {
			t.Errorf("UserLogin through the other business = %+v, %v", l, err)
		}
	})
}

// accessLookup is a token lookup with its business (AccessWithBusiness)
// of tok sent with b's Application Key, failing the test on an error.
func accessLookup(t *testing.T, db *sqlstore.DB, tok oauth.Token, b testBusiness) func() (oauth.Token, loyalty.Business) {
	return func() (oauth.Token, loyalty.Business) {
		t.Helper()
		got, biz, err := db.AccessWithBusiness(ctx, tok.AccessHash, b.ApplicationKey)
		if err != nil {
			t.Fatalf("AccessWithBusiness: %v", err)
		}
		return got, biz
	}
}
