package console_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

var tokenLine = regexp.MustCompile(`(?m)^Token: (\S+)$`)

// lastMessage returns the newest outbox message to an address and the
// token on its Token: line.
func lastMessage(t *testing.T, db *sqlstore.DB, to string) (subject, body, token string) {
	t.Helper()
	err := db.SQL().QueryRowContext(context.Background(), `SELECT subject, body FROM outbox WHERE recipient = $1 ORDER BY id DESC LIMIT 1`, to).
		Scan(&subject, &body)
	if err != nil {
		t.Fatalf("no message to %s: %v", to, err)
	}
	m := tokenLine.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("message to %s has no Token: line:\n%s", to, body)
	}
	return subject, body, m[1]
}

// TestStaffInvitation: the owner invites by e-mail through the outbox; the
// token is stored hashed, works once, and not after 72 hours; each step is
// in the audit log; only the owner manages staff.
func TestStaffInvitation(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.Open(t, engine)
			hasher := oauth.NewHasher([]byte("test key"))
			admin := &loyalty.AdminService{Store: db, Hash: hasher}
			b, err := admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Corner Cafe", LoyaltyType: loyalty.PerSpend,
				OwnerEmail: "owner@cafe.example", OwnerPassword: "owner-password"})
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
			db.Clock = func() time.Time { return now }
			cs := console.New(db, console.Options{Admin: admin, Hash: hasher})
			owner := loyalty.Actor{Kind: loyalty.AccountOwner, ID: b.OwnerID, BusinessID: b.BusinessID, Email: "owner@cafe.example", Role: loyalty.RoleOwner}

			_, err = cs.Staff.Invite(ctx, owner, console.StaffInvite{Email: "not-an-address", Role: "boss"}, "")
			testenv.WantField(t, err, "email")
			testenv.WantField(t, err, "role")
			_, err = cs.Staff.Invite(ctx, owner, console.StaffInvite{Email: "Owner@Cafe.example", Role: loyalty.RoleCashier}, "")
			testenv.WantField(t, err, "email")

			m, err := cs.Staff.Invite(ctx, owner, console.StaffInvite{Email: "Cash@Cafe.example", Role: loyalty.RoleCashier},
				"https://loyalty.example/business/invitation")
			if err != nil || m.Email != "cash@cafe.example" || m.Joined() {
				t.Fatalf("Invite = %+v, %v", m, err)
			}
			subject, body, token := lastMessage(t, db, "cash@cafe.example")
			if subject != "Join Corner Cafe on Loyalty" || !regexp.MustCompile(`https://loyalty.example/business/invitation\?token=\S+`).MatchString(body) {
				t.Errorf("invitation %q:\n%s", subject, body)
			}
			var raw, hashed int
			db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM account_tokens WHERE token_hash = $1`, []byte(token)).Scan(&raw)
			db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM account_tokens WHERE token_hash = $1`, hasher.Token(token)).Scan(&hashed)
			if raw != 0 || hashed != 1 {
				t.Errorf("tokens stored raw: %d, hashed: %d; want 0 and 1", raw, hashed)
			}
			// Before accepting, the member cannot act.
			if _, err := cs.Staff.Actor(ctx, loyalty.AccountStaff, m.ID, b.BusinessID, m.Email); loyalty.ErrorCode(err) != loyalty.EUnauthorized {
				t.Errorf("Actor of a pending member: %v, want unauthorized", err)
			}
			inv, err := cs.Staff.Invitation(ctx, token)
			if err != nil || inv.Business.Name != "Corner Cafe" || inv.Member.Role != loyalty.RoleCashier {
				t.Fatalf("Invitation = %+v, %v", inv, err)
			}
			_, err = cs.Staff.Accept(ctx, token, "short")
			testenv.WantField(t, err, "password")
			if _, err := cs.Staff.Accept(ctx, token, "cashier-password"); err != nil {
				t.Fatalf("Accept: %v", err)
			}
			_, err = cs.Staff.Accept(ctx, token, "cashier-password-2")
			testenv.WantNotFound(t, err)
			cashier, err := cs.Staff.Actor(ctx, loyalty.AccountStaff, m.ID, b.BusinessID, m.Email)
			if err != nil || cashier.Role != loyalty.RoleCashier || cashier.Can(loyalty.PermManage) || !cashier.Can(loyalty.PermCounter) {
				t.Fatalf("Actor = %+v, %v; want a cashier who may use the counter only", cashier, err)
			}
			if _, err := cs.Staff.Invite(ctx, cashier, console.StaffInvite{Email: "x@cafe.example", Role: loyalty.RoleManager}, ""); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier invited staff: %v", err)
			}
			if _, err := cs.Staff.List(ctx, cashier); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier listed staff: %v", err)
			}

			// An invitation expires after 72 hours; a new one replaces the old.
			mgr, err := cs.Staff.Invite(ctx, owner, console.StaffInvite{Email: "mgr@cafe.example", Role: loyalty.RoleManager}, "")
			if err != nil {
				t.Fatal(err)
			}
			_, _, first := lastMessage(t, db, "mgr@cafe.example")
			now = now.Add(72*time.Hour + time.Second)
			_, err = cs.Staff.Accept(ctx, first, "manager-password")
			testenv.WantNotFound(t, err)
			if _, err := cs.Staff.Reinvite(ctx, owner, mgr.ID, ""); err != nil {
				t.Fatal(err)
			}
			_, body, second := lastMessage(t, db, "mgr@cafe.example")
			if !regexp.MustCompile(`/business/invitation`).MatchString(body) {
				t.Errorf("an invitation without a page address does not name the page:\n%s", body)
			}
			now = now.Add(71 * time.Hour)
			if _, err := cs.Staff.Accept(ctx, second, "manager-password"); err != nil {
				t.Fatalf("Accept the second invitation: %v", err)
			}

			if _, err := cs.Staff.SetRole(ctx, owner, m.ID, loyalty.RoleManager); err != nil {
				t.Fatal(err)
			}
			if a, _ := cs.Staff.Actor(ctx, loyalty.AccountStaff, m.ID, b.BusinessID, m.Email); a.Role != loyalty.RoleManager {
				t.Errorf("role after the change %q", a.Role)
			}
			if _, err := cs.Staff.Remove(ctx, owner, m.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.Staff.Actor(ctx, loyalty.AccountStaff, m.ID, b.BusinessID, m.Email); loyalty.ErrorCode(err) != loyalty.EUnauthorized {
				t.Errorf("a removed member still acts: %v", err)
			}

			page, err := cs.Audit.Page(ctx, owner, loyalty.AuditFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range page.Entries {
				got = append(got, e.Action+" "+e.Target+" by "+e.ActorEmail)
			}
			want := []string{
				"staff.removed cash@cafe.example by owner@cafe.example",
				"staff.role_changed cash@cafe.example by owner@cafe.example",
				"staff.joined mgr@cafe.example by mgr@cafe.example",
				"staff.reinvited mgr@cafe.example by owner@cafe.example",
				"staff.invited mgr@cafe.example by owner@cafe.example",
				"staff.joined cash@cafe.example by cash@cafe.example",
				"staff.invited cash@cafe.example by owner@cafe.example",
			}
			if len(got) != len(want) {
				t.Fatalf("audit log %q, want %q", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("audit entry %d: %q, want %q", i, got[i], want[i])
				}
			}
			if e := page.Entries[1]; e.Before["role"] != "cashier" || e.After["role"] != "manager" {
				t.Errorf("role change recorded before %v after %v", e.Before, e.After)
			}
			if _, err := cs.Audit.Page(ctx, cashier, loyalty.AuditFilter{}); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier read the audit log: %v", err)
			}
		})
	}
}

// TestAuditLogIsAppendOnly: the database itself refuses to change or
// remove an entry of the audit log.
func TestAuditLogIsAppendOnly(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.Open(t, engine)
			hasher := oauth.NewHasher([]byte("test key"))
			admin := &loyalty.AdminService{Store: db, Hash: hasher}
			b, err := admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Cafe", LoyaltyType: loyalty.PerSpend,
				OwnerEmail: "owner@cafe.example", OwnerPassword: "owner-password"})
			if err != nil {
				t.Fatal(err)
			}
			cs := console.New(db, console.Options{Admin: admin, Hash: hasher})
			owner := loyalty.Actor{Kind: loyalty.AccountOwner, ID: b.OwnerID, BusinessID: b.BusinessID, Email: "owner@cafe.example", Role: loyalty.RoleOwner}
			if err := cs.Access.RotateKey(ctx, owner); err != nil {
				t.Fatal(err)
			}
			if _, err := db.SQL().ExecContext(ctx, `UPDATE audit_log SET action = 'nothing'`); err == nil {
				t.Error("UPDATE audit_log succeeded")
			}
			if _, err := db.SQL().ExecContext(ctx, `DELETE FROM audit_log`); err == nil {
				t.Error("DELETE FROM audit_log succeeded")
			}
			page, err := cs.Audit.Page(ctx, owner, loyalty.AuditFilter{})
			if err != nil || len(page.Entries) != 1 || page.Entries[0].Action != loyalty.AuditKeyRotated {
				t.Errorf("audit log after the attempts: %+v, %v", page.Entries, err)
			}
		})
	}
}
