package loyalty_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/testenv"
)

func TestAdminService(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.Open(t, engine)
			hasher := oauth.NewHasher([]byte("test key"))
			notified := 0
			svc := &loyalty.AdminService{Store: db, Hash: hasher, Notify: func() { notified++ }}

			if empty, err := svc.Empty(ctx); err != nil || !empty {
				t.Fatalf("Empty on a new database = %v, %v", empty, err)
			}
			_, err := svc.CreateCoalition(ctx, "  ")
			testenv.WantField(t, err, "name")
			coal, err := svc.CreateCoalition(ctx, " Main Street ")
			if err != nil || !loyalty.ValidID(coal.CoalitionID) || len(coal.ApplicationKey) < 40 {
				t.Fatalf("CreateCoalition = %+v, %v", coal, err)
			}
			_, err = svc.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Cafe", LoyaltyType: "per_drink", OwnerEmail: "x", OwnerPassword: "short"})
			testenv.WantField(t, err, "loyalty_type")
			b, err := svc.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Cafe", LoyaltyType: loyalty.PerSpend,
				OwnerEmail: "Owner@Cafe.example", OwnerPassword: "first-password", CoalitionID: coal.CoalitionID})
			if err != nil {
				t.Fatal(err)
			}
			if empty, _ := svc.Empty(ctx); empty {
				t.Error("Empty with a business")
			}

			byEmail, err := svc.Business(ctx, "owner@cafe.EXAMPLE")
			if err != nil || byEmail.ID != b.BusinessID || byEmail.ApplicationKey != b.ApplicationKey || byEmail.CoalitionID != coal.CoalitionID {
				t.Errorf("Business by e-mail = %+v, %v", byEmail, err)
			}
			for _, ref := range []string{"nobody@cafe.example", "not an id", loyalty.NewID()} {
				_, err := svc.Business(ctx, ref)
				testenv.WantNotFound(t, err)
			}

			key, err := svc.RotateKey(ctx, b.BusinessID)
			if err != nil || key == b.ApplicationKey {
				t.Fatalf("RotateKey = %q, %v", key, err)
			}
			if _, err := db.Tenant(ctx, b.ApplicationKey); loyalty.ErrorCode(err) != loyalty.EUnauthorized {
				t.Errorf("the old key still opens the business: %v", err)
			}
			if live, err := svc.ApplicationKey(ctx, b.BusinessID); err != nil || live != key {
				t.Errorf("ApplicationKey = %q, %v; want %q", live, err, key)
			}
			_, err = svc.RotateKey(ctx, loyalty.NewID())
			testenv.WantNotFound(t, err)

			// A given password is set as it is, and nothing is sent.
			_, err = svc.ResetOwnerPassword(ctx, b.BusinessID, "short")
			testenv.WantField(t, err, "password")
			r, err := svc.ResetOwnerPassword(ctx, b.BusinessID, "second-password")
			if err != nil || r.Emailed || r.OwnerEmail != "owner@cafe.example" || r.OwnerID != b.OwnerID || notified != 0 {
				t.Fatalf("ResetOwnerPassword with a password = %+v, %v (notified %d)", r, err, notified)
			}
			wantPassword(t, hasher, db, "owner@cafe.example", "second-password")
			if ids, _ := db.DueMessages(ctx, time.Now().Add(time.Minute), 10); len(ids) != 0 {
				t.Errorf("a message was queued for a given password: %v", ids)
			}

			// Without one, a new password goes to the owner by e-mail.
			r, err = svc.ResetOwnerPassword(ctx, "owner@cafe.example", "")
			if err != nil || !r.Emailed || notified != 1 {
				t.Fatalf("ResetOwnerPassword without a password = %+v, %v (notified %d)", r, err, notified)
			}
			ids, err := db.DueMessages(ctx, time.Now().Add(time.Minute), 10)
			if err != nil || len(ids) != 1 {
				t.Fatalf("queued messages = %v, %v", ids, err)
			}
			m, _, err := db.ClaimMessage(ctx, ids[0], "test", time.Now().Add(time.Minute), time.Now().Add(time.Hour))
			if err != nil || m.To != "owner@cafe.example" {
				t.Fatalf("message = %+v, %v", m, err)
			}
			sent := regexp.MustCompile(`(?m)^Password: (\S+)$`).FindStringSubmatch(m.Body)
			if sent == nil {
				t.Fatalf("the message carries no password:\n%s", m.Body)
			}
			wantPassword(t, hasher, db, "owner@cafe.example", sent[1])
			_, err = svc.ResetOwnerPassword(ctx, loyalty.NewID(), "")
			testenv.WantNotFound(t, err)
		})
	}
}

// wantPassword fails unless the owner signing in with email has password.
func wantPassword(tb testing.TB, h *oauth.Hasher, db interface {
	OwnerLogin(context.Context, string) (oauth.Login, error)
}, email, password string) {
	tb.Helper()
	l, err := db.OwnerLogin(context.Background(), email)
	if err != nil {
		tb.Fatal(err)
	}
	if ok, err := h.VerifyPassword(context.Background(), l.Hash, password); err != nil || !ok {
		tb.Errorf("the owner's password is not %q (%v)", password, err)
	}
}
