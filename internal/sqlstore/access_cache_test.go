package sqlstore_test

import (
	"errors"
	"fmt"
	"strconv"
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
		settle(t, db)

		b := createBusiness(t, db, "")
		app := insertApp(t, db, oauth.AppApproved)
		tok := insertToken(t, db, app, b, "")
		lookup := accessLookup(t, db, tok, b)
		first, firstBiz := lookup()
		if firstBiz.ID != b.BusinessID || firstBiz.Loaded == nil || first.Key.BusinessID != b.BusinessID || first.Revoked {
			t.Fatalf("lookup = %+v, %+v", first, firstBiz)
		}

		// Rules changed here are read by the next lookup.
		rules := firstBiz.Loaded.Rules
		rules.RewardRatio = 7
		gen := db.AccessGeneration()
		if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.SaveRules(ctx, rules) }); err != nil {
			t.Fatal(err)
		}
		if db.Dialect() == sqlstore.Postgres {
			// The change's notification comes back to this instance's
			// own listener too, and ends the cache a second time when it
			// arrives: let it arrive before the timed part below.
			// (SQLite's watcher knows its own process's changes.)
			for start := time.Now(); db.AccessGeneration() < gen+2; time.Sleep(time.Millisecond) {
				if time.Since(start) > 5*time.Second {
					t.Fatal("the rules change's notification never came back")
				}
			}
		}
		// The entry the lookup below makes is read after before: "less
		// than ttl since before" is less than ttl since it was read, however
		// long the calls between take on a loaded machine.
		before := time.Now()
		if _, got := lookup(); got.Loaded.Rules.RewardRatio != 7 {
			t.Errorf("after saving rules: ratio %d, want 7", got.Loaded.Rules.RewardRatio)
		}

		// The app is disapproved by a change this instance does not hear
		// of (a hand-made change in the database, or another instance's
		// notification sent while this one could not listen). A reward
		// appended here leaves the cached lookup in use; it lasts at most
		// ttl where the store hears no other instance (SQLite), and up to
		// a minute on PostgreSQL while it hears the channel (see
		// TestDeafListenerFallsBackToTTL for what happens when it stops).
		lookup()
		read := before
		if _, err := other.SQL().ExecContext(ctx, `UPDATE apps SET status = $1 WHERE client_id = $2`, oauth.AppPending, app.ClientID); err != nil {
			t.Fatal(err)
		}
		c := createCustomer(t, other, b.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("cache@example.com")})
		e := loyalty.Transaction{BusinessID: b.BusinessID, CustomerID: c.ID, Intent: loyalty.IntentReward, TypeCode: 4,
			Name: "Reward", Points: 5, TierPoints: 5, Visits: 1, CreatedAt: db.Now()}
		if ok, err := db.AppendAlone(ctx, &e); !ok || err != nil {
			t.Fatalf("AppendAlone = %v, %v", ok, err)
		}
		got, _ := lookup()
		switch {
		case got.AppStatus == oauth.AppApproved:
			time.Sleep(ttl - time.Since(read) + 50*time.Millisecond)
			want := oauth.AppPending
			if db.AccessListening() {
				want = oauth.AppApproved
			}
			if got, _ := lookup(); got.AppStatus != want {
				t.Errorf("%v after an unheard change (listening %v): app status %q, want %q", time.Since(read), db.AccessListening(), got.AppStatus, want)
			}
		case time.Since(read) < ttl:
			t.Errorf("a ledger append ended the cached lookup (app status %q already)", got.AppStatus)
		default:
			// The calls above took longer than ttl (a loaded machine) and
			// the listener may have missed its pings for as long: the entry
			// had lived its time, and was read again. Nothing to time.
			t.Logf("the unheard change was read again after %v (a slow machine): the timed checks are skipped", time.Since(read))
		}

		// A refresh here revokes the token at once.
		if _, err := db.SpendRefresh(ctx, tok.RefreshHash, tokenNow.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got, _ := lookup(); !got.Revoked {
			t.Error("the token's refresh did not reach the next lookup")
		}
	})
}

// openPair opens a migrated database twice: db with a token cache of ttl,
// and other, a second handle standing for another instance.
func openPair(t *testing.T, dsn string, ttl time.Duration) (db, other *sqlstore.DB) {
	t.Helper()
	for _, p := range []**sqlstore.DB{&db, &other} {
		d, err := sqlstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		*p = d
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db.TokenCacheTTL = ttl
	settle(t, db)
	return db, other
}

// settle waits until db hears other instances' (SQLite: processes')
// changes: its listener ends every cached lookup once when it starts
// hearing, which would otherwise land in the middle of a test.
func settle(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	waitListening(t, db)
}

// TestTokenLookupCacheKeptByOtherWrites: the writes that cannot change a
// token lookup (customers, sign-ins, the ledger, the outbox) leave the
// cached lookup in use. Before each, the rules are changed by hand in the
// database (unannounced), so a lookup read again would show it.
func TestTokenLookupCacheKeptByOtherWrites(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		db, other := openPair(t, dsn, time.Hour)
		w := newSignInWorld(t, db)
		tok, err := w.signIn(cachePassword)
		if err != nil {
			t.Fatal(err)
		}
		ratio := int64(100)
		kept := func(what string, write func() error) {
			t.Helper()
			_, b := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey)
			cached := b.Loaded.Rules.RewardRatio
			ratio++
			// A change this instance does not hear of (made by hand, not
			// through a store that announces it), so only a write here
			// could end the cached lookup.
			if _, err := other.SQL().ExecContext(ctx, `INSERT INTO business_rules (business_id, reward_ratio, reward_milestone_amount,
				round_up_points, welcome_points, points_per_visit, updated_at) VALUES ($1, $2, 0, FALSE, 0, 0, $3)
				ON CONFLICT (business_id) DO UPDATE SET reward_ratio = excluded.reward_ratio`, w.biz.BusinessID, ratio, time.Now().UTC()); err != nil {
				t.Fatal(err)
			}
			if err := write(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if _, b := w.lookup(t, tok.AccessToken, w.biz.ApplicationKey); b.Loaded.Rules.RewardRatio != cached {
				t.Errorf("%s ended the cached lookup (ratio %d read again, %d cached)", what, b.Loaded.Rules.RewardRatio, cached)
			}
		}

		var c loyalty.Customer
		kept("creating a customer", func() error {
			c = createCustomer(t, db, w.biz.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("kept@example.com")})
			return nil
		})
		kept("AppendAlone", func() error {
			e := loyalty.Transaction{BusinessID: w.biz.BusinessID, CustomerID: c.ID, Intent: loyalty.IntentReward, TypeCode: 4,
				Name: "Reward", Points: 5, TierPoints: 5, Visits: 1, CreatedAt: db.Now()}
			if ok, err := db.AppendAlone(ctx, &e); !ok || err != nil {
				return fmt.Errorf("AppendAlone = %v, %v", ok, err)
			}
			return nil
		})
		kept("an Append in WithTx", func() error {
			return db.WithTx(ctx, func(tx loyalty.Tx) error {
				e := loyalty.Transaction{BusinessID: w.biz.BusinessID, CustomerID: c.ID, Intent: loyalty.IntentReward, TypeCode: 4,
					Name: "Reward", Points: 3, TierPoints: 3, Visits: 1, CreatedAt: tx.Now()}
				return tx.Append(ctx, &e)
			})
		})
		kept("a sign-in", func() error {
			_, err := w.signIn(cachePassword)
			return err
		})
		kept("a failed sign-in", func() error {
			if _, err := w.signIn("wrong password"); err == nil {
				return errors.New("a wrong password signed in")
			}
			return nil
		})
		kept("a sign-in after a failed one", func() error {
			_, err := w.signIn(cachePassword)
			return err
		})
		m := loyalty.Message{Channel: loyalty.ChannelEmail, To: "kept@example.com", Subject: "Hi", Body: "Hello"}
		kept("enqueueing a message", func() error {
			return db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.EnqueueMessage(ctx, &m) })
		})
		kept("the outbox's bookkeeping", func() error {
			now := db.Now()
			if _, ok, err := db.ClaimMessage(ctx, m.ID, "c1", now, now.Add(time.Minute)); !ok || err != nil {
				return fmt.Errorf("ClaimMessage = %v, %v", ok, err)
			}
			if err := db.MessageFailed(ctx, m.ID, "c1", "down", now); err != nil {
				return err
			}
			if _, ok, err := db.ClaimMessage(ctx, m.ID, "c2", now, now.Add(time.Minute)); !ok || err != nil {
				return fmt.Errorf("ClaimMessage again = %v, %v", ok, err)
			}
			return db.MessageSent(ctx, m.ID, "c2", now)
		})
		if db.Dialect() == sqlstore.Postgres {
			// Another deployment in another schema of the same database
			// announces its changes on the same channel.
			kept("a change announced in another schema", func() error {
				elsewhere := testenv.Open(t, sqlstore.Postgres)
				fb := createBusiness(t, elsewhere, "")
				err := elsewhere.WithTx(ctx, func(tx loyalty.Tx) error {
					return tx.SaveRules(ctx, loyalty.Rules{BusinessID: fb.BusinessID, LoyaltyType: loyalty.PerSpend, RewardRatio: 3})
				})
				// Notifications arrive within milliseconds (see
				// TestAccessChangesHeardAcrossInstances).
				time.Sleep(200 * time.Millisecond)
				return err
			})
		}
	})
}

// TestTokenLookupCacheEndedByAccessChanges: each change to what a token
// lookup reads, made through this DB, is seen by the very next lookup.
func TestTokenLookupCacheEndedByAccessChanges(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		db, _ := openPair(t, dsn, time.Hour)
		w := newSignInWorld(t, db)
		tok, err := w.signIn(cachePassword)
		if err != nil {
			t.Fatal(err)
		}
		key := w.biz.ApplicationKey
		lookup := func() (oauth.Token, loyalty.Business) { t.Helper(); return w.lookup(t, tok.AccessToken, key) }
		_, b := lookup()
		if b.ID != w.biz.BusinessID || b.Loaded.HasPointsOffers {
			t.Fatalf("first lookup: business %+v", b)
		}

		rules := b.Loaded.Rules
		rules.RewardRatio += 5
		if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.SaveRules(ctx, rules) }); err != nil {
			t.Fatal(err)
		}
		if _, b := lookup(); b.Loaded.Rules.RewardRatio != rules.RewardRatio {
			t.Errorf("after saving rules: ratio %d, want %d", b.Loaded.Rules.RewardRatio, rules.RewardRatio)
		}

		offers := loyalty.OfferService{Store: db}
		o, err := offers.Create(ctx, b, loyalty.OfferInput{TypeID: loyalty.Some(loyalty.OfferBonusPoints),
			Title: loyalty.Some("Bonus"), Points: loyalty.Some(int64(10))})
		if err != nil {
			t.Fatal(err)
		}
		if _, b := lookup(); !b.Loaded.HasPointsOffers || !b.Loaded.OffersRead || len(b.Loaded.PointsOffers) != 1 {
			t.Errorf("after creating a points offer: HasPointsOffers %v, offers read %v: %+v", b.Loaded.HasPointsOffers,
				b.Loaded.OffersRead, b.Loaded.PointsOffers)
		}
		id := strconv.FormatInt(o.ID, 10)
		// The offers read with the business are the ones a reward decides
		// from: a change of one ends them too.
		if _, err := offers.Update(ctx, b, id, loyalty.OfferInput{Points: loyalty.Some(int64(25))}); err != nil {
			t.Fatal(err)
		}
		if _, b := lookup(); len(b.Loaded.PointsOffers) != 1 || b.Loaded.PointsOffers[0].Points != 25 {
			t.Errorf("after changing the offer's points: %+v", b.Loaded.PointsOffers)
		}
		if _, err := offers.Update(ctx, b, id, loyalty.OfferInput{Enabled: loyalty.Some(false)}); err != nil {
			t.Fatal(err)
		}
		if _, b := lookup(); b.Loaded.HasPointsOffers {
			t.Error("after disabling the points offer: HasPointsOffers true")
		}
		if _, err := offers.Update(ctx, b, id, loyalty.OfferInput{Enabled: loyalty.Some(true)}); err != nil {
			t.Fatal(err)
		}
		if _, b := lookup(); !b.Loaded.HasPointsOffers {
			t.Error("after enabling the points offer: HasPointsOffers false")
		}
		if err := offers.Delete(ctx, b, id); err != nil {
			t.Fatal(err)
		}
		if _, b := lookup(); b.Loaded.HasPointsOffers {
			t.Error("after deleting the points offer: HasPointsOffers true")
		}

		if err := w.srv.SetAppStatus(ctx, w.app.ClientID, oauth.AppSuspended); err != nil {
			t.Fatal(err)
		}
		if got, _ := lookup(); got.AppStatus != oauth.AppSuspended {
			t.Errorf("after suspending the app: status %q", got.AppStatus)
		}
		if err := w.srv.SetAppStatus(ctx, w.app.ClientID, oauth.AppApproved); err != nil {
			t.Fatal(err)
		}
		if got, _ := lookup(); got.AppStatus != oauth.AppApproved {
			t.Errorf("after approving the app again: status %q", got.AppStatus)
		}

		// A key nobody has yet is remembered as unknown, until it is created.
		future := "key-" + loyalty.NewID()
		if got, _ := w.lookup(t, tok.AccessToken, future); got.Key != (loyalty.Tenant{}) {
			t.Fatalf("lookup with a key not created yet: Key %+v", got.Key)
		}
		nb, err := db.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Next", LoyaltyType: loyalty.PerSpend, Country: "US",
			OwnerEmail: "next-" + loyalty.NewID() + "@shop.example", OwnerPassword: cachePassword}, "unused", future)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := w.lookup(t, tok.AccessToken, future); got.Key.BusinessID != nb.BusinessID {
			t.Errorf("after creating the business of that key: Key %+v, want business %s", got.Key, nb.BusinessID)
		}

		if got, _ := lookup(); got.Key.BusinessID != w.biz.BusinessID {
			t.Fatalf("lookup with the business's key: Key %+v", got.Key)
		}
		if _, err := (&loyalty.AdminService{Store: w.db}).RotateKey(ctx, w.biz.BusinessID); err != nil {
			t.Fatal(err)
		}
		if got, _ := lookup(); got.Key != (loyalty.Tenant{}) {
			t.Errorf("after rotating the key: the old key still resolves to %+v", got.Key)
		}

		next, err := w.srv.Token(ctx, oauth.TokenRequest{GrantType: oauth.GrantRefresh, ClientID: w.app.ClientID,
			ClientSecret: w.app.ClientSecret, RefreshToken: tok.RefreshToken,
			Tenant: loyalty.Tenant{Key: key, BusinessID: w.biz.BusinessID}})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := lookup(); !got.Revoked {
			t.Error("after the token's refresh: the old access token is not revoked")
		}

		// The owner revokes the app's access in the portal.
		if got, _ := w.lookup(t, next.AccessToken, key); got.Revoked {
			t.Fatal("the refreshed token is revoked")
		}
		app, err := db.AppByClientID(ctx, w.app.ClientID)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.srv.RevokeConnection(ctx, w.biz.BusinessID, app.ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := w.lookup(t, next.AccessToken, key); !got.Revoked {
			t.Error("after revoking the app's access: the token is not revoked")
		}
	})
}
