package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestEventsReachNATS starts the service with Config.EventsNATS (serve
// --events-nats) and checks that a change made through the services
// reaches the JetStream stream on its subject, with the event's id as
// Nats-Msg-Id, without anyone reading GET /events. It publishes to a
// stream of its own (serve --events-nats-stream): the default one may be
// another test's, in another process, meanwhile.
func TestEventsReachNATS(t *testing.T) {
	ctx := context.Background()
	url := testenv.NATSURL(t)
	dir := t.TempDir()
	stream := "LOYALTY_TEST_" + loyalty.NewID()
	a, err := Open(ctx, Config{DB: filepath.Join(dir, "loyalty.db"), DataDir: dir, EventsNATS: url,
		EventsNATSStream: stream, EventsNATSPrefix: stream})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Handler() // starts the background workers
	id := loyalty.NewID()
	cb, err := a.DB.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Shop " + id[24:], LoyaltyType: loyalty.PerSpend, Country: "US",
		OwnerEmail: "owner-" + id + "@shop.example", OwnerPassword: "unused"}, "hash", "key-"+id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.DB.Business(ctx, cb.BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("nats@example.com")})
	if err != nil {
		t.Fatal(err)
	}

	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatalf("NATS at %s: %v (LOYALTY_TEST_NATS_URL=off skips)", url, err)
	}
	t.Cleanup(nc.Close) // after the stream's deletion below: cleanups run last first
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.DeleteStream(ctx, stream) })
	subject := stream + "." + b.ID + "." + loyalty.EventCustomerCreated
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := js.Stream(ctx, stream)
		if err == nil {
			if m, err := s.GetLastMsgForSubject(ctx, subject); err == nil {
				var e loyalty.EventJSON
				if err := json.Unmarshal(m.Data, &e); err != nil {
					t.Fatal(err)
				}
				var data struct{ ID string }
				if err := json.Unmarshal(e.Data, &data); err != nil {
					t.Fatal(err)
				}
				if m.Header.Get(jetstream.MsgIDHeader) != e.ID || e.Sequence != 1 || data.ID != c.ID {
					t.Fatalf("message %s: Nats-Msg-Id %q, event %+v", m.Subject, m.Header.Get(jetstream.MsgIDHeader), e)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no message on %s within 10s (stream: %v)", subject, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
