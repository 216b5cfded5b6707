package fault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestWebhooksSurviveSIGKILL kills the service with SIGKILL while
// customers are being created and their events delivered to a webhook
// receiver and published to NATS JetStream, then starts it again: the
// receiver ends up with every event of GET /events (deduplicated by
// webhook-id), which lists them numbered without a gap, the database
// holds one delivery per event, and the stream exactly one message per
// event (LOYALTY_TEST_NATS_URL=off leaves NATS out).
func TestWebhooksSurviveSIGKILL(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("needs PostgreSQL; LOYALTY_TEST_POSTGRES=off")
	}
	bin := testenv.BuildLoyalty(t)
	dsn := testenv.DSN(t, sqlstore.Postgres)
	dataDir := t.TempDir()
	cli := func(args ...string) map[string]any {
		t.Helper()
		return testenv.RunJSON(t, bin, append(append([]string{"--db", dsn, "--data-dir", dataDir}, args...), "--json")...)
	}
	cli("migrate")
	owner, password := "owner@crash.example", "crash-pass-2026"
	biz := cli("admin", "business", "create", "--name", "Crash Cafe", "--loyalty-type", "per_spend",
		"--owner-email", owner, "--owner-password", password)
	app := cli("admin", "app", "create", "--name", "Till", "--api", "business", "--grant", "password", "--approve")
	key := str(biz["application_key"])

	var mu sync.Mutex
	got := map[string]int{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(5 * time.Millisecond) // deliveries are in flight when the process dies
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
	}))
	defer receiver.Close()

	args := []string{"--db", dsn, "--data-dir", dataDir, "--webhooks-allow-private"}
	natsURL := os.Getenv("LOYALTY_TEST_NATS_URL")
	// A stream of the test's own (--events-nats-stream), deleted at its
	// end: other tests may use the default one meanwhile.
	stream := "LOYALTY_FAULT_" + strings.ReplaceAll(str(biz["business_id"]), "-", "")
	if natsURL != "off" {
		natsURL = testenv.NATSURL(t)
		args = append(args, "--events-nats", natsURL, "--events-nats-stream", stream+":"+stream)
		t.Cleanup(func() { deleteStream(t, natsURL, stream) })
	}
	proc, base := startKillable(t, bin, args...)
	hc := &http.Client{Timeout: 10 * time.Second}
	tok := ownerToken(t, hc, base, app, key, owner, password)
	call := func(base, method, path, body string) *http.Request {
		r, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		r.Header.Set("X-Application-Key", key)
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	if status := do(t, hc, call(base, http.MethodPost, "/webhooks", `{"url":"`+receiver.URL+`"}`), nil); status != http.StatusCreated {
		t.Fatalf("create webhook: %d", status)
	}

	// Four writers create customers until the process dies under them.
	var created atomic.Int64
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := 0; ; i++ {
				body := fmt.Sprintf(`{"email":"c%d-%d@crash.example"}`, w, i)
				resp, err := hc.Do(call(base, http.MethodPost, "/customers", body))
				if err != nil {
					return
				}
				resp.Body.Close()
				created.Add(1)
			}
		}()
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 30 && created.Load() >= 60 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: %d customers created, %d delivered", created.Load(), n)
		}
	}
	proc.Process.Signal(syscall.SIGKILL)
	proc.Wait()
	writers.Wait()

	_, base = startKillable(t, bin, args...)
	var ids []string
	var last int64
	for {
		var page struct {
			Data []struct {
				ID       string `json:"id"`
				Sequence int64  `json:"sequence"`
			} `json:"data"`
		}
		if status := do(t, hc, call(base, http.MethodGet, fmt.Sprintf("/events?after=%d&per_page=100", last), ""), &page); status != http.StatusOK {
			t.Fatalf("events: %d", status)
		}
		if len(page.Data) == 0 {
			break
		}
		for _, e := range page.Data {
			if e.Sequence != last+1 {
				t.Fatalf("event %s has sequence %d after %d", e.ID, e.Sequence, last)
			}
			last = e.Sequence
			ids = append(ids, e.ID)
		}
	}
	if len(ids) < 60 {
		t.Fatalf("%d events in the feed, want the 60 or more customers created", len(ids))
	}
	// Deliveries held by the killed process wait for their lease (30 s).
	missing := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, id := range ids {
			if got[id] == 0 {
				out = append(out, id)
			}
		}
		return out
	}
	for deadline := time.Now().Add(90 * time.Second); len(missing()) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the restart, %d of %d events never reached the receiver", len(missing()), len(ids))
		}
	}
	store, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var rows, distinct int
	if err := store.SQL().QueryRow(`SELECT COUNT(*), COUNT(DISTINCT event_id) FROM webhook_deliveries`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	dup := 0
	for _, n := range got {
		if n > 1 {
			dup++
		}
	}
	mu.Unlock()
	t.Logf("%d events, all delivered; %d delivered more than once (at least once on the wire)", len(ids), dup)
	if rows != len(ids) || distinct != len(ids) {
		t.Errorf("%d deliveries queued for %d distinct events, want one per each of the %d events", rows, distinct, len(ids))
	}
	if natsURL == "off" {
		return
	}
	// JetStream: one message per event, retries after the kill deduplicated by Nats-Msg-Id.
	var msgs map[string]int
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if msgs = streamed(t, natsURL, stream, str(biz["business_id"])); len(msgs) >= len(ids) || time.Now().After(deadline) {
			break
		}
	}
	total := 0
	for _, n := range msgs {
		total += n
	}
	for _, id := range ids {
		if msgs[id] != 1 {
			t.Errorf("event %s is in the stream %d times, want once", id, msgs[id])
		}
	}
	if total != len(ids) {
		t.Errorf("the stream holds %d messages of the business, want one per each of the %d events", total, len(ids))
	}
}

// jetStreamAt connects to the NATS server at url.
func jetStreamAt(t *testing.T, url string) (jetstream.JetStream, func()) {
	t.Helper()
	nc, err := nats.Connect(url, nats.Timeout(3*time.Second))
	if err != nil {
		t.Fatalf("NATS at %s: %v", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	return js, nc.Close
}

// deleteStream deletes the test's stream, if the service made it.
func deleteStream(t *testing.T, url, stream string) {
	js, done := jetStreamAt(t, url)
	defer done()
	_ = js.DeleteStream(context.Background(), stream)
}

// streamed reads the messages of the service's stream (subjects prefixed
// with its name) on a business's subjects: event id (Nats-Msg-Id) -> how
// many messages carry it.
func streamed(t *testing.T, url, stream, businessID string) map[string]int {
	t.Helper()
	js, done := jetStreamAt(t, url)
	defer done()
	out := map[string]int{}
	ctx := context.Background()
	c, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{stream + "." + businessID + ".>"}})
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return out
	} else if err != nil {
		t.Fatal(err)
	}
	for {
		batch, err := c.Fetch(200, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for m := range batch.Messages() {
			out[m.Headers().Get(jetstream.MsgIDHeader)]++
			n++
		}
		if n == 0 {
			return out
		}
	}
}

// startKillable starts `loyalty serve` with args on a free loopback port
// and returns the process and its base URL once it answers.
func startKillable(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var logs bytes.Buffer
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = io.Discard, &syncWriter{w: &logs}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(logs.String(), 4000))
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return cmd, base
		}
	}
	t.Fatalf("serve did not answer within 30s")
	return nil, ""
}

// ownerToken signs the business's owner in to app through base (the
// password grant, scope admin) and returns the access token.
func ownerToken(t *testing.T, hc *http.Client, base string, app map[string]any, key, owner, password string) (tok struct {
	AccessToken string `json:"access_token"`
}) {
	t.Helper()
	till := testenv.Till{Key: key, ClientID: str(app["client_id"]), Secret: str(app["client_secret"]), Owner: owner, Password: password}
	if status := do(t, hc, till.TokenRequest(base), &tok); status != http.StatusOK {
		t.Fatalf("token: %d", status)
	}
	return tok
}
