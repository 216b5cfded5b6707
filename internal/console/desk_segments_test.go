package console_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestSegmentDesk: the owner saves, counts, lists and deletes segments,
// each change in the audit log by its name; a cashier may do none of it,
// nor change tags, but reads a customer's tags. Tags are audited with
// what they were and are, as stored (lower-case, each once); tags that
// change nothing log nothing. A segment's customers are paged.
func TestSegmentDesk(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.Open(t, engine)
			admin := &loyalty.AdminService{Store: db, Hash: oauth.NewHasher([]byte("test key"))}
			created, err := admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Corner Cafe", LoyaltyType: loyalty.PerSpend, Country: "CA",
				OwnerEmail: "owner@cafe.example", OwnerPassword: "owner-password"})
			if err != nil {
				t.Fatal(err)
			}
			svc := loyalty.NewServices(db, loyalty.ServiceOptions{})
			desk := &console.CustomerDesk{Services: svc, Store: db}
			cs := console.New(db, console.Options{Admin: admin})
			cashier := loyalty.Actor{Kind: loyalty.AccountStaff, ID: loyalty.NewID(), BusinessID: created.BusinessID,
				Email: "till@cafe.example", Role: loyalty.RoleCashier}
			owner := loyalty.Actor{Kind: loyalty.AccountOwner, ID: created.OwnerID, BusinessID: created.BusinessID,
				Email: "owner@cafe.example", Role: loyalty.RoleOwner}
			b, err := db.Business(ctx, created.BusinessID)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range []string{"ann@friends.example", "bob@friends.example", "cid@friends.example"} {
				c, err := svc.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some(e)})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, c.ID)
			}

			forbidden := func(what string, err error) {
				t.Helper()
				if loyalty.ErrorCode(err) != loyalty.EForbidden {
					t.Errorf("a cashier %s: %v, want forbidden", what, err)
				}
			}
			_, _, err = desk.Segments(ctx, cashier)
			forbidden("lists segments", err)
			_, err = desk.CountSegment(ctx, cashier, loyalty.SegmentFilter{})
			forbidden("counts a segment", err)
			_, err = desk.SaveSegment(ctx, cashier, "", "All", loyalty.SegmentFilter{})
			forbidden("saves a segment", err)
			_, err = desk.SetTags(ctx, cashier, ids[0], []string{"vip"})
			forbidden("tags a customer", err)

			if _, err := desk.SetTags(ctx, owner, ids[0], []string{" VIP", "staff", "vip"}); err != nil {
				t.Fatal(err)
			}
			if _, err := desk.SetTags(ctx, owner, ids[0], []string{"staff", "vip"}); err != nil {
				t.Fatal(err)
			}
			if _, err := desk.SetTags(ctx, owner, ids[1], []string{"vip"}); err != nil {
				t.Fatal(err)
			}
			tags, err := desk.Tags(ctx, cashier, ids[0])
			if err != nil || !slices.Equal(tags.Tags, []string{"staff", "vip"}) || !slices.Equal(tags.Known, []string{"staff", "vip"}) {
				t.Errorf("Ann's tags as a cashier reads them: %+v, %v", tags, err)
			}
			_, err = desk.SetTags(ctx, owner, ids[2], []string{"this tag is far too long to be a tag at all, really"})
			testenv.WantField(t, err, "tags")

			vip := []string{"vip"}
			seg, err := desk.SaveSegment(ctx, owner, "", "VIPs", loyalty.SegmentFilter{TagsAny: vip})
			if err != nil {
				t.Fatal(err)
			}
			days := 0
			_, err = desk.SaveSegment(ctx, owner, "", "Never", loyalty.SegmentFilter{NotVisitedDays: &days})
			testenv.WantField(t, err, "filters.not_visited_days")
			if n, err := desk.CountSegment(ctx, owner, loyalty.SegmentFilter{TagsNone: vip}); err != nil || n != 1 {
				t.Errorf("count of those not tagged vip: %d, %v; want 1", n, err)
			}
			rows, total, err := desk.Segments(ctx, owner)
			if err != nil || total != 1 || len(rows) != 1 || rows[0].Name != "VIPs" || rows[0].Count != 2 {
				t.Errorf("segments %+v (%d), %v; want VIPs of 2", rows, total, err)
			}
			id := strconv.FormatInt(seg.ID, 10)
			m, err := desk.SegmentCustomers(ctx, owner, id, 1)
			if err != nil || m.Total != 2 || len(m.Customers) != 2 || m.Pages != 1 || m.Segment.Name != "VIPs" {
				t.Errorf("the segment's customers %+v, %v", m, err)
			}
			if err := desk.DeleteSegment(ctx, cashier, id); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier deletes a segment: %v", err)
			}
			if err := desk.DeleteSegment(ctx, owner, id); err != nil {
				t.Fatal(err)
			}
			if _, err := desk.Segment(ctx, owner, id); loyalty.ErrorCode(err) != loyalty.ENotFound {
				t.Errorf("the deleted segment: %v", err)
			}

			page, err := cs.Audit.Page(ctx, owner, loyalty.AuditFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range page.Entries {
				got = append(got, e.Action+" "+e.Target+" "+e.Before["tags"]+"→"+e.After["tags"])
			}
			want := []string{
				loyalty.AuditProgramDeleted + " Segment: VIPs →",
				loyalty.AuditProgramCreated + " Segment: VIPs →",
				loyalty.AuditCustomerUpdated + " bob@friends.example →vip",
				loyalty.AuditCustomerUpdated + " ann@friends.example →staff, vip",
			}
			if !slices.Equal(got, want) {
				t.Errorf("audit log:\n%q\nwant\n%q", got, want)
			}
		})
	}
}
