package loyalty_test

import (
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestCampaignPreview: a campaign's message is previewed as its first
// member receives it (e-mail with the unsubscribe footer and headers,
// text with its stop link, the app's notification), with placeholders
// for a segment of nobody, unknown merge fields named; the unsubscribe
// link unsubscribes nobody. A test goes to the merchant's address alone
// through the outbox, marked as a test, and draws nobody; a campaign
// without e-mail, or without its subject, is refused by field.
func TestCampaignPreview(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		ann := w.create(t, b, `{"email":"ann@friends.example","phone":"+14169791234","first_name":"Ann"}`)
		w.create(t, b, `{"email":"bob@friends.example","first_name":"Bob"}`)
		segs := &loyalty.SegmentService{Store: w.db}
		everyone, err := segs.Save(w.ctx, b, "", loyalty.SegmentInput{Name: loyalty.Some("Everyone"), Filters: loyalty.Some(loyalty.SegmentFilter{})})
		if err != nil {
			t.Fatal(err)
		}
		far := int64(1_000_000)
		nobody, err := segs.Save(w.ctx, b, "", loyalty.SegmentInput{Name: loyalty.Some("Rich"), Filters: loyalty.Some(loyalty.SegmentFilter{PointsMin: &far})})
		if err != nil {
			t.Fatal(err)
		}
		r := &loyalty.CampaignRunner{Store: w.db, UnsubscribeKey: []byte("key"), UnsubscribeURL: "https://cafe.example/unsubscribe"}
		c := loyalty.Campaign{Name: "We miss you", SegmentID: everyone.ID, Channels: []string{"email", "sms", "push"},
			Subject: "{{first_name}}, we miss you", EmailBody: "Hello {{first_name}}, you have {{points}} points at {{business_name}}.",
			SMSBody: "{{first_name}}: 50 points wait for you {{nickname}}"}
		first := ann.ID
		p, err := r.Preview(w.ctx, b, c)
		if err != nil {
			t.Fatal(err)
		}
		if p.Sample.ID != first {
			t.Errorf("the sample is %s, want the first member %s", p.Sample.ID, first)
		}
		link := "https://cafe.example/unsubscribe/preview"
		if p.Email == nil || p.Email.Subject != "Ann, we miss you" ||
			!strings.HasPrefix(p.Email.Body, "Hello Ann, you have 0 points at "+b.Name+".") || !strings.Contains(p.Email.Body, "To stop: "+link) ||
			p.Email.Headers["List-Unsubscribe"] != "<"+link+">" || p.Email.To != "ann@friends.example" {
			t.Errorf("the e-mail: %+v", p.Email)
		}
		if p.Text == nil || p.Text.Body != "Ann: 50 points wait for you  Stop: "+link {
			t.Errorf("the text: %+v", p.Text)
		}
		if p.Push == nil || p.Push.Title != "Ann, we miss you" {
			t.Errorf("the push: %+v", p.Push)
		}
		if len(p.Unknown) != 1 || p.Unknown[0] != "nickname" {
			t.Errorf("unknown merge fields: %v", p.Unknown)
		}

		c.SegmentID, c.Channels = nobody.ID, []string{"email"}
		if p, err = r.Preview(w.ctx, b, c); err != nil {
			t.Fatal(err)
		}
		if p.Sample.ID != "" || p.Email.Subject != "[first name], we miss you" || p.Text != nil || p.Push != nil {
			t.Errorf("the preview of a segment of nobody: %+v", p)
		}

		c.SegmentID = everyone.ID
		before := w.outbox(t)
		m, err := r.SendTest(w.ctx, b, c, "owner@cafe.example")
		if err != nil {
			t.Fatal(err)
		}
		after := w.outbox(t)
		if len(after) != len(before)+1 {
			t.Fatalf("the outbox had %d messages, has %d after a test", len(before), len(after))
		}
		got := after[len(after)-1]
		if got.to != "owner@cafe.example" || got.subject != "[Test] Ann, we miss you" || m.ID == 0 || !strings.Contains(got.body, link) {
			t.Errorf("the test message: %+v", got)
		}

		c.Channels = []string{"sms"}
		_, err = r.SendTest(w.ctx, b, c, "owner@cafe.example")
		wantInvalid(t, err, "channels")
		c.Channels, c.Subject = []string{"email"}, ""
		_, err = r.SendTest(w.ctx, b, c, "owner@cafe.example")
		wantInvalid(t, err, "subject")
		if len(w.outbox(t)) != len(after) {
			t.Error("a refused test queued a message")
		}
	})
}
