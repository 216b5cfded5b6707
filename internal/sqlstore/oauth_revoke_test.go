package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestRevokeChainAndToken: RevokeToken ends one pair, RevokeChain every
// pair of a chain and nothing else; a pair revoked before keeps its time;
// and a lookup cached on this DB sees the revocation at once.
func TestRevokeChainAndToken(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		db.TokenCacheTTL = time.Hour
		b := createBusiness(t, db, "")
		app := insertApp(t, db, oauth.AppApproved)
		first := insertToken(t, db, app, b, "")
		second := insertToken(t, db, app, b, first.ChainID)
		bystander := insertToken(t, db, app, b, "")
		lone := insertToken(t, db, app, b, "")
		for _, tok := range []oauth.Token{first, second, bystander, lone} {
			if got := access(t, db, tok); got.Revoked { // now cached
				t.Fatalf("token %s revoked before any revocation", tok.ID)
			}
		}

		if err := db.RevokeToken(ctx, lone.ID, tokenNow); err != nil {
			t.Fatal(err)
		}
		if !access(t, db, lone).Revoked {
			t.Error("RevokeToken: the pair is not revoked (or the cache kept it)")
		}
		if access(t, db, bystander).Revoked || access(t, db, second).Revoked {
			t.Error("RevokeToken revoked other pairs")
		}

		if err := db.RevokeChain(ctx, first.ChainID, tokenNow.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if !access(t, db, first).Revoked || !access(t, db, second).Revoked {
			t.Error("RevokeChain left a pair of the chain alive")
		}
		if access(t, db, bystander).Revoked {
			t.Error("RevokeChain revoked a pair of another chain")
		}
		// Revoking again changes nothing and is no error.
		if err := db.RevokeChain(ctx, lone.ChainID, tokenNow.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		var at time.Time
		if err := db.SQL().QueryRow(`SELECT revoked_at FROM oauth_tokens WHERE id = $1`, lone.ID).Scan(&at); err != nil {
			t.Fatal(err)
		}
		if !at.Equal(tokenNow) {
			t.Errorf("revoked_at of a pair revoked twice = %v, want the first time %v", at, tokenNow)
		}
	})
}
