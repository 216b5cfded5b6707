package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

func TestBusinessSummaries(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		if has, err := db.HasBusinesses(ctx); err != nil || has {
			t.Fatalf("HasBusinesses on a new database = %v, %v; want false", has, err)
		}
		coal, err := db.CreateCoalition(ctx, "Main Street", "mall-key")
		if err != nil {
			t.Fatal(err)
		}
		setClock(db, tokenNow)
		first := createBusiness(t, db, "")
		setClock(db, tokenNow.Add(time.Minute))
		member := createBusiness(t, db, coal)
		if err := db.RotateKey(ctx, loyalty.Tenant{BusinessID: first.BusinessID}, "first-key-2"); err != nil {
			t.Fatal(err)
		}
		if has, err := db.HasBusinesses(ctx); err != nil || !has {
			t.Fatalf("HasBusinesses = %v, %v; want true", has, err)
		}

		all, err := db.BusinessSummaries(ctx)
		if err != nil || len(all) != 2 {
			t.Fatalf("BusinessSummaries = %+v, %v; want 2", all, err)
		}
		got := all[0]
		if got.ID != first.BusinessID || got.OwnerID != first.OwnerID || got.OwnerEmail != first.OwnerEmail ||
			got.ApplicationKey != "first-key-2" || got.CoalitionID != "" || got.LoyaltyType != loyalty.PerSpend ||
			got.Country != "US" || !got.CreatedAt.Equal(tokenNow) || !got.OwnerLocked.IsZero() {
			t.Errorf("first summary = %+v; want the business, its owner and its rotated key", got)
		}
		if all[1].ID != member.BusinessID || all[1].CoalitionID != coal || all[1].ApplicationKey != member.ApplicationKey {
			t.Errorf("second summary = %+v, want the coalition member", all[1])
		}

		byEmail, err := db.BusinessSummary(ctx, "", member.OwnerEmail)
		if err != nil || byEmail.ID != member.BusinessID {
			t.Errorf("BusinessSummary by owner e-mail = %+v, %v", byEmail, err)
		}
		byID, err := db.BusinessSummary(ctx, first.BusinessID, "")
		if err != nil || byID != got {
			t.Errorf("BusinessSummary by id = %+v, %v; want %+v", byID, err, got)
		}
		_, err = db.BusinessSummary(ctx, loyalty.NewID(), "")
		wantCode(t, err, loyalty.ENotFound)
		_, err = db.BusinessSummary(ctx, "", "nobody@shop.example")
		wantCode(t, err, loyalty.ENotFound)

		coalitions, err := db.Coalitions(ctx)
		if err != nil || len(coalitions) != 1 {
			t.Fatalf("Coalitions = %+v, %v", coalitions, err)
		}
		if c := coalitions[0]; c.ID != coal || c.Name != "Main Street" || c.ApplicationKey != "mall-key" || c.Members != 1 {
			t.Errorf("coalition = %+v, want Main Street with its key and one member", c)
		}
	})
}

func TestSetOwnerPassword(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		for range oauth.MaxFailures {
			if err := db.RecordLogin(ctx, "owner", b.OwnerID, false, tokenNow); err != nil {
				t.Fatal(err)
			}
		}
		if s, _ := db.BusinessSummary(ctx, b.BusinessID, ""); !s.OwnerLocked.Equal(tokenNow.Add(oauth.LockFor)) {
			t.Fatalf("owner locked until %v, want %v", s.OwnerLocked, tokenNow.Add(oauth.LockFor))
		}
		session := randomBytes(32)
		if err := db.InsertSession(ctx, session, oauth.Session{Kind: oauth.KindOwner, SubjectID: b.OwnerID, BusinessID: b.BusinessID,
			Email: b.OwnerEmail, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour), LastSeen: time.Now()}); err != nil {
			t.Fatal(err)
		}

		m := &loyalty.Message{Channel: loyalty.ChannelEmail, To: b.OwnerEmail, Subject: "New password", Body: "Password: x"}
		if err := db.SetOwnerPassword(ctx, b.OwnerID, "new-hash", m); err != nil {
			t.Fatal(err)
		}
		login, err := db.OwnerLogin(ctx, b.OwnerEmail)
		if err != nil || login.Hash != "new-hash" || !login.LockedUntil.IsZero() {
			t.Errorf("after the reset: login %+v, %v; want the new hash and no lock", login, err)
		}
		_, err = db.SessionByHash(ctx, session)
		wantCode(t, err, loyalty.ENotFound)
		ids, err := db.DueMessages(ctx, time.Now().Add(time.Minute), 10)
		if err != nil || len(ids) != 1 {
			t.Fatalf("due messages = %v, %v; want the one queued", ids, err)
		}
		got, ok, err := db.ClaimMessage(ctx, ids[0], "test", time.Now().Add(time.Minute), time.Now().Add(time.Hour))
		if err != nil || !ok || got.To != b.OwnerEmail || got.Subject != "New password" || got.Body != "Password: x" {
			t.Errorf("queued message = %+v, %v, %v", got, ok, err)
		}

		// Without a message nothing more is queued.
		if err := db.SetOwnerPassword(ctx, b.OwnerID, "newer-hash", nil); err != nil {
			t.Fatal(err)
		}
		if ids, _ := db.DueMessages(ctx, time.Now().Add(time.Minute), 10); len(ids) != 0 {
			t.Errorf("due messages after a reset without message: %v", ids)
		}
		wantCode(t, db.SetOwnerPassword(ctx, loyalty.NewID(), "hash", m), loyalty.ENotFound)
	})
}

func TestDeleteApp(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		db.TokenCacheTTL = time.Hour
		b := createBusiness(t, db, "")
		app := insertApp(t, db, oauth.AppSuspended)
		kept := insertApp(t, db, oauth.AppApproved)
		tok := insertToken(t, db, app, b, "")
		other := insertToken(t, db, kept, b, "")
		// Read through the token cache, which the deletion must end.
		if _, err := db.AccessForKey(ctx, tok.AccessHash, b.ApplicationKey); err != nil {
			t.Fatal(err)
		}

		listed, err := db.ListedApp(ctx, app.ClientID)
		if err != nil || listed.ID != app.ID || listed.Name != "Till" || listed.Status != oauth.AppSuspended || listed.DeveloperEmail != "" {
			t.Fatalf("ListedApp = %+v, %v", listed, err)
		}
		if err := db.DeleteApp(ctx, app.ID); err != nil {
			t.Fatal(err)
		}
		_, err = db.ListedApp(ctx, app.ClientID)
		wantCode(t, err, loyalty.ENotFound)
		_, err = db.AccessForKey(ctx, tok.AccessHash, b.ApplicationKey)
		wantCode(t, err, loyalty.ENotFound)
		if got := access(t, db, other); got.AppID != kept.ID {
			t.Errorf("the other app's token = %+v", got)
		}
		wantCode(t, db.DeleteApp(ctx, app.ID), loyalty.ENotFound)
	})
}

func TestSupportAccounts(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		var ids []string
		for i, email := range []string{"ann@support.example", "bob@support.example"} {
			l := oauth.Login{Kind: oauth.KindSupport, ID: loyalty.NewID(), Hash: "hash"}
			if err := db.InsertAccount(ctx, l, email, "", tokenNow.Add(time.Duration(i)*time.Minute)); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, l.ID)
		}
		session := randomBytes(32)
		if err := db.InsertSession(ctx, session, oauth.Session{Kind: oauth.KindSupport, SubjectID: ids[0],
			Email: "ann@support.example", CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour), LastSeen: time.Now()}); err != nil {
			t.Fatal(err)
		}
		all, err := db.SupportAccounts(ctx)
		if err != nil || len(all) != 2 || all[0].ID != ids[0] || all[0].Email != "ann@support.example" ||
			!all[0].CreatedAt.Equal(tokenNow) || all[1].ID != ids[1] {
			t.Fatalf("SupportAccounts = %+v, %v", all, err)
		}
		if err := db.DeleteSupport(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
		_, err = db.SessionByHash(ctx, session)
		wantCode(t, err, loyalty.ENotFound)
		if all, _ := db.SupportAccounts(ctx); len(all) != 1 || all[0].ID != ids[1] {
			t.Errorf("after deleting ann: %+v", all)
		}
		wantCode(t, db.DeleteSupport(ctx, ids[0]), loyalty.ENotFound)
	})
}
