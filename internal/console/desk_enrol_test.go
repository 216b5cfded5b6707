package console_test

import (
	"context"
	"testing"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestEnrolmentFrom: what a cashier typed at the counter prefills the
// new customer's form: an e-mail address, a phone number, or a name (the
// first word the first name); a customer code prefills nothing.
func TestEnrolmentFrom(t *testing.T) {
	cases := map[string]console.Enrolment{
		" ann@friends.example ":            {Email: "ann@friends.example"},
		"+1 604 555 0142":                  {Phone: "+1 604 555 0142"},
		"06 12 34 56 78":                   {Phone: "06 12 34 56 78"},
		"Ann":                              {FirstName: "Ann"},
		"  Ann   van der  Berg ":           {FirstName: "Ann", LastName: "van der Berg"},
		"0123456789abcdef0123456789ABCDEF": {},
		"":                                 {},
	}
	for typed, want := range cases {
		if got := console.EnrolmentFrom(typed); got != want {
			t.Errorf("EnrolmentFrom(%q) = %+v, want %+v", typed, got, want)
		}
	}
}

// TestEnrol: a cashier adds a customer, with a local phone number read in
// the business's country, and the audit log names who added whom; the
// form needs an e-mail or a phone, and the domain's refusals name the
// form's fields; an e-mail or phone already a customer's returns that
// customer, unchanged and unlogged. At the counter a name finds the
// customers it starts, a short list.
func TestEnrol(t *testing.T) {
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
			desk := &console.CustomerDesk{Services: loyalty.NewServices(db, loyalty.ServiceOptions{}), Store: db}
			cs := console.New(db, console.Options{Admin: admin})
			cashier := loyalty.Actor{Kind: loyalty.AccountStaff, ID: loyalty.NewID(), BusinessID: created.BusinessID,
				Email: "till@cafe.example", Role: loyalty.RoleCashier}
			owner := loyalty.Actor{Kind: loyalty.AccountOwner, ID: created.OwnerID, BusinessID: created.BusinessID,
				Email: "owner@cafe.example", Role: loyalty.RoleOwner}

			_, err = desk.Enrol(ctx, cashier, console.Enrolment{FirstName: "Ann"})
			testenv.WantField(t, err, "email")
			testenv.WantField(t, err, "phone")
			_, err = desk.Enrol(ctx, cashier, console.Enrolment{Email: "ann@", BirthDate: "2990-01-01"})
			testenv.WantField(t, err, "email")
			testenv.WantField(t, err, "birth_date")
			_, err = desk.Enrol(ctx, cashier, console.Enrolment{Phone: "12"})
			testenv.WantField(t, err, "phone")

			got, err := desk.Enrol(ctx, cashier, console.Enrolment{FirstName: " Ann ", LastName: "Lee", Email: "Ann@Friends.example",
				Phone: "(604) 555-0142", BirthDate: "1990-04-02"})
			if err != nil || got.Existing {
				t.Fatalf("Enrol = %+v, %v", got, err)
			}
			c := got.Customer
			if c.FirstName != "Ann" || c.Email != "ann@friends.example" || c.Phone != "+16045550142" || c.BirthDate != "1990-04-02" || !c.Enabled {
				t.Errorf("the new customer is %+v", c)
			}
			page, err := cs.Audit.Page(ctx, owner, loyalty.AuditFilter{})
			if err != nil || len(page.Entries) != 1 {
				t.Fatalf("audit log %+v, %v; want one entry", page.Entries, err)
			}
			if e := page.Entries[0]; e.Action != loyalty.AuditCustomerCreated || e.ActorEmail != "till@cafe.example" ||
				e.Target != "Ann Lee <ann@friends.example>" {
				t.Errorf("audit entry %+v", e)
			}

			svc := loyalty.NewServices(db, loyalty.ServiceOptions{})
			b, _ := db.Business(ctx, created.BusinessID)
			if st, err := svc.Consents.State(ctx, b, c.ID, loyalty.ConsentMarketing); err != nil || st.Email || len(st.History) != 0 {
				t.Errorf("consent of Ann, who said nothing: %+v, %v; want none", st, err)
			}
			cid, err := desk.Enrol(ctx, cashier, console.Enrolment{FirstName: "Cid", Email: "cid@friends.example", OffersByEmail: true})
			if err != nil {
				t.Fatal(err)
			}
			st, err := svc.Consents.State(ctx, b, cid.Customer.ID, loyalty.ConsentMarketing)
			if err != nil || !st.Email || st.SMS || len(st.History) != 1 || st.History[0].Source != loyalty.ConsentFromConsole ||
				st.History[0].By != "till@cafe.example" {
				t.Errorf("consent of Cid, who said yes to e-mail as he joined: %+v, %v", st, err)
			}

			for _, again := range []console.Enrolment{{FirstName: "Annie", Email: "ANN@friends.example"}, {Phone: "604 555 0142"}} {
				got, err := desk.Enrol(ctx, cashier, again)
				if err != nil || !got.Existing || got.Customer.ID != c.ID || got.Customer.FirstName != "Ann" {
					t.Errorf("Enrol(%+v) = %+v, %v; want Ann as she was", again, got, err)
				}
			}
			if page, _ := cs.Audit.Page(ctx, owner, loyalty.AuditFilter{}); len(page.Entries) != 2 {
				t.Errorf("finding Ann again logged %d entries", len(page.Entries)-2)
			}

			for i, name := range []string{"Anna", "Andy", "Bo"} {
				if _, err := desk.Enrol(ctx, owner, console.Enrolment{FirstName: name, Email: name + "@friends.example"}); err != nil {
					t.Fatalf("enrol %d: %v", i, err)
				}
			}
			m, err := desk.Find(ctx, cashier, "AN")
			if err != nil || !m.ByName || len(m.Customers) != 3 || m.More {
				t.Errorf("Find(AN) = %+v, %v; want Ann, Anna and Andy", m, err)
			}
			for i := range console.CounterNames {
				e := console.Enrolment{FirstName: "Anton", LastName: string(rune('A' + i)), Email: "anton" + string(rune('a'+i)) + "@friends.example"}
				if _, err := desk.Enrol(ctx, owner, e); err != nil {
					t.Fatal(err)
				}
			}
			m, err = desk.Find(ctx, cashier, "an")
			if err != nil || len(m.Customers) != console.CounterNames || !m.More {
				t.Errorf("Find(an) lists %d customers, more %v, %v; want %d and more", len(m.Customers), m.More, err, console.CounterNames)
			}
			m, err = desk.Find(ctx, cashier, "zed")
			if err != nil || !m.ByName || len(m.Customers) != 0 {
				t.Errorf("Find(zed) = %+v, %v; want nobody", m, err)
			}
		})
	}
}
