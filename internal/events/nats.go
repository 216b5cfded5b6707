package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/worker"
)

// DefaultStream is the JetStream stream the feed publishes to.
const DefaultStream = "LOYALTY_EVENTS"

// NATS publishes every numbered event to JetStream, on subject
// loyalty.<business_id>.<type> of a stream it creates if missing, with
// the event's id as Nats-Msg-Id so that JetStream keeps one message per
// event when a publish is retried.
//
// It follows each business's feed with a cursor of its own (destination
// "nats:<stream>"), under a lease: a worker claims the cursor, publishes
// the events after it, waits for JetStream's acknowledgements and only
// then advances it, so several instances never publish a business's
// events at once, and a worker that dies between a publish and the
// cursor's advance leaves events that the next claim publishes again —
// deduplicated by their Nats-Msg-Id within the stream's duplicate window
// (Duplicates; far longer than the lease).
type NATS struct {
	Store  loyalty.EventStore
	JS     jetstream.JetStream
	Logger *slog.Logger
	Clock  func() time.Time
	// Stream is the stream's name; default DefaultStream.
	Stream string
	// Prefix is the subjects' first token; default "loyalty". JetStream
	// refuses two streams with overlapping subjects, so installations (or
	// tests) sharing a NATS server need one each.
	Prefix string
	// Duplicates is the duplicate window of the stream it creates;
	// default an hour.
	Duplicates time.Duration
	// Lease is how long a claimed cursor stays this worker's without an
	// advance; default 30 seconds.
	Lease time.Duration
	// Every is how often it looks for events to publish; default 200ms.
	Every time.Duration

	follower *loyalty.Follower
	stream   bool // the stream is known to exist
}

// DialNATS connects to the NATS server at url and returns its JetStream
// and how to close the connection. The connection keeps retrying, so that
// the service starts, and publishes later, while the server is away.
func DialNATS(url string) (jetstream.JetStream, func(), error) {
	nc, err := nats.Connect(url, nats.Name("loyalty"), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1))
	if err != nil {
		return nil, nil, fmt.Errorf("--events-nats: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("--events-nats: %w", err)
	}
	return js, nc.Close, nil
}

// subject is the subject an event is published on.
func (p *NATS) subject(e loyalty.Event) string { return p.prefix() + "." + e.BusinessID + "." + e.Type }

func (p *NATS) prefix() string { return orDefault(p.Prefix, "loyalty") }

func (p *NATS) streamName() string { return orDefault(p.Stream, DefaultStream) }

func (p *NATS) destination() string { return "nats:" + p.streamName() }

// EnsureStream creates the stream, taking every subject under the
// prefix, unless it exists.
func (p *NATS) EnsureStream(ctx context.Context) error {
	if p.stream {
		return nil
	}
	_, err := p.JS.Stream(ctx, p.streamName())
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = p.JS.CreateStream(ctx, jetstream.StreamConfig{Name: p.streamName(), Subjects: []string{p.prefix() + ".>"},
			Duplicates: orDefault(p.Duplicates, time.Hour), Storage: jetstream.FileStorage})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			err = nil // another instance created it meanwhile
		}
	}
	p.stream = err == nil
	return err
}

// Start runs the publisher in the background until stop is called.
func (p *NATS) Start(ctx context.Context) (stop func()) { return worker.Start(ctx, p.Run) }

// Run publishes until ctx is done, then gives up its cursors' leases.
func (p *NATS) Run(ctx context.Context) {
	follow(ctx, orDefault(p.Every, 200*time.Millisecond), p.followed(), p.Drain, p.Logger, "publishing to NATS")
}

// Drain publishes the numbered events of every business that has some
// beyond the cursor, and returns how many JetStream acknowledged.
func (p *NATS) Drain(ctx context.Context) (int, error) {
	if err := p.EnsureStream(ctx); err != nil {
		return 0, err
	}
	n, err := p.followed().Round(ctx, p.publish)
	if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoStreamResponse) {
		// No stream takes the subjects any more (deleted by hand, say):
		// the next round creates it again, and publishes from the
		// cursors, which only acknowledged messages advanced.
		p.stream = false
	}
	return n, err
}

func (p *NATS) followed() *loyalty.Follower {
	if p.follower == nil {
		p.follower = &loyalty.Follower{Store: p.Store, Destination: p.destination(), Clock: p.Clock, Lease: p.Lease}
	}
	return p.follower
}

// publish publishes a business's events after seq, a page at a time,
// advancing the cursor past each acknowledged page.
func (p *NATS) publish(ctx context.Context, businessID string, seq int64, until func() time.Time) (int, int64, bool, error) {
	total := 0
	for {
		page, err := loyalty.ReadEvents(ctx, p.Store, businessID, loyalty.EventQuery{After: seq, Limit: 100})
		if err != nil || len(page) == 0 {
			return total, seq, true, err
		}
		acked, err := p.publishPage(ctx, page)
		if acked > 0 {
			held, aerr := p.Store.AdvanceCursor(ctx, p.destination(), businessID, p.followed().Claim(), page[acked-1].Seq, until())
			if aerr != nil || !held {
				// Lost to another worker after the lease ran out: it goes on.
				return total, seq, held, aerr
			}
			total, seq = total+acked, page[acked-1].Seq
		}
		if err != nil || len(page) < 100 {
			return total, seq, true, err
		}
	}
}

// publishPage publishes a page of events at once and returns how many of
// them, from the first, JetStream acknowledged.
func (p *NATS) publishPage(ctx context.Context, page []loyalty.Event) (int, error) {
	futures := make([]jetstream.PubAckFuture, 0, len(page))
	var sendErr error
	for _, e := range page {
		body, err := json.Marshal(loyalty.NewEventJSON(e))
		if err != nil {
			sendErr = err
			break
		}
		msg := nats.NewMsg(p.subject(e))
		msg.Data = body
		f, err := p.JS.PublishMsgAsync(msg, jetstream.WithMsgID(e.ID), jetstream.WithExpectStream(p.streamName()))
		if err != nil {
			sendErr = err
			break
		}
		futures = append(futures, f)
	}
	for i, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return i, err
		case <-ctx.Done():
			return i, ctx.Err()
		}
	}
	return len(futures), sendErr
}

// orDefault returns v, or def when v is zero.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
