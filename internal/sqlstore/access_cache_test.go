package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestTokenLookupCache: with a token cache, a change committed through the
// same DB is seen by the next lookup (a revoked token, new rules), a change
// made through another handle on the database (another instance) is seen
// once the cache's time is up, and the ledger's own appends keep the cache.
func TestTokenLookupCache(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		const ttl = time.Second
		db, err := sqlstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		db.TokenCacheTTL = ttl
		other, err := sqlstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()

		b := createBusiness(t, db, "")
		app := insertApp(t, db, oauth.AppApproved)
		tok := insertToken(t, db, app, b, "")
		lookup := func() oauth.Token {
			t.Helper()
			got, err := db.AccessForLedger(ctx, tok.AccessHash, b.ApplicationKey)
			if err != nil {
				t.Fatalf("AccessForLedger: %v", err)
			}
			return got
		}
		first := lookup()
		if first.Business == nil || first.Business.ID != b.BusinessID || first.Key.BusinessID != b.BusinessID || first.Revoked {
			t.Fatalf("lookup = %+v", first)
		}

		// Rules changed here are read by the next lookup.
		rules := first.Business.Loaded.Rules
		rules.RewardRatio = 7
		if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.SaveRules(ctx, rules) }); err != nil {
			t.Fatal(err)
		}
		if got := lookup(); got.Business.Loaded.Rules.RewardRatio != 7 {
			t.Errorf("after saving rules: ratio %d, want 7", got.Business.Loaded.Rules.RewardRatio)
		}

		// Another instance disapproves the app. A reward appended here
		// leaves the cached lookup in use; it lasts at most ttl.
		lookup()
		read := time.Now()
		if err := other.SetAppStatus(ctx, app.ClientID, oauth.AppPending); err != nil {
			t.Fatal(err)
		}
		c := createCustomer(t, other, b.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("cache@example.com")})
		e := loyalty.Transaction{BusinessID: b.BusinessID, CustomerID: c.ID, Intent: loyalty.IntentReward, TypeCode: 4,
			Name: "Reward", Points: 5, TierPoints: 5, Visits: 1, CreatedAt: db.Now()}
		if ok, err := db.AppendAlone(ctx, &e); !ok || err != nil {
			t.Fatalf("AppendAlone = %v, %v", ok, err)
		}
		if got := lookup(); got.AppStatus != oauth.AppApproved && time.Since(read) < ttl {
			t.Errorf("a ledger append ended the cached lookup (app status %q already)", got.AppStatus)
		}
		time.Sleep(ttl - time.Since(read) + 50*time.Millisecond)
		if got := lookup(); got.AppStatus != oauth.AppPending {
			t.Errorf("%v after another instance's change: app status %q, want %q", time.Since(read), got.AppStatus, oauth.AppPending)
		}

		// A refresh here revokes the token at once.
		if _, err := db.SpendRefresh(ctx, tok.RefreshHash, tokenNow.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := lookup(); !got.Revoked {
			t.Error("the token's refresh did not reach the next lookup")
		}
	})
}
