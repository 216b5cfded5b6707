package webhooks

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestRefusal names every range the guard keeps deliveries from, and lets
// public addresses (the neighbours of those ranges among them) through.
func TestRefusal(t *testing.T) {
	refused := []string{"127.0.0.1", "127.255.255.254", "::1", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.0.1",
		"169.254.169.254", "169.254.0.1", "fe80::1", "fc00::1", "fdff::1", "0.0.0.0", "0.1.2.3", "::", "224.0.0.1", "239.1.1.1",
		"ff02::1", "100.64.0.1", "100.127.255.255", "255.255.255.255", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254"}
	allowed := []string{"1.1.1.1", "8.8.8.8", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "169.253.0.1",
		"203.0.113.7", "2606:4700::1111", "192.169.0.1"}
	for _, s := range refused {
		if Refusal(netip.MustParseAddr(s)) == "" {
			t.Errorf("%s is allowed", s)
		}
	}
	for _, s := range allowed {
		if why := Refusal(netip.MustParseAddr(s)); why != "" {
			t.Errorf("%s refused as %s", s, why)
		}
	}
}

type fixedResolver map[string][]netip.Addr

func (r fixedResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

// TestCheckURL: https only, every address of a name checked, a name that
// does not resolve refused; AllowPrivate allows all of it and http.
func TestCheckURL(t *testing.T) {
	r := fixedResolver{
		"public.example": {netip.MustParseAddr("203.0.113.7")},
		"mixed.example":  {netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("10.0.0.7")},
	}
	g := Guard{Resolver: r}
	for raw, ok := range map[string]bool{
		"https://public.example/h":      true,
		"https://203.0.113.7:8443/h":    true,
		"http://public.example/h":       false,
		"https://mixed.example/h":       false,
		"https://nowhere.example/h":     false,
		"https://[::1]/h":               false,
		"https://169.254.169.254/":      false,
		"wss://public.example/h":        false,
		"https://[fe80::1%25eth0]:80/h": false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.CheckURL(context.Background(), u); (err == nil) != ok {
			t.Errorf("%s: %v, want allowed %v", raw, err, ok)
		}
	}
	open := Guard{AllowPrivate: true, Resolver: r}
	for _, raw := range []string{"http://127.0.0.1:8080/h", "https://mixed.example/h"} {
		u, _ := url.Parse(raw)
		if err := open.CheckURL(context.Background(), u); err != nil {
			t.Errorf("AllowPrivate, %s: %v", raw, err)
		}
	}
	if err := g.control("tcp", "127.0.0.1:80", nil); !errors.Is(err, ErrRefusedAddress) {
		t.Errorf("dialing loopback: %v", err)
	}
	if err := g.control("tcp", "[::ffff:169.254.169.254]:80", nil); !errors.Is(err, ErrRefusedAddress) {
		t.Errorf("dialing the metadata address: %v", err)
	}
	if err := g.control("tcp", "203.0.113.7:443", nil); err != nil {
		t.Errorf("dialing a public address: %v", err)
	}
}

// TestBackoff: the default schedule retries for more than the fail limit
// (so a lone failing delivery disables its endpoint), each wait within
// its jitter, and no wait after the last attempt.
func TestBackoff(t *testing.T) {
	var total time.Duration
	for _, d := range DefaultBackoff {
		total += d
	}
	if total < 3*24*time.Hour || total <= loyalty.WebhookFailLimit {
		t.Errorf("the schedule retries for %v, want more than 3 days and than the fail limit", total)
	}
	w := &Worker{}
	for attempt := 1; attempt <= len(DefaultBackoff); attempt++ {
		base := DefaultBackoff[attempt-1]
		for range 50 {
			d, ok := w.wait(attempt)
			if !ok || d < base*9/10 || d > base*11/10 {
				t.Fatalf("wait after attempt %d: %v %v, want %v ± 10 %%", attempt, d, ok, base)
			}
		}
	}
	if _, ok := w.wait(len(DefaultBackoff) + 1); ok {
		t.Error("a wait after the last attempt")
	}
}

// TestExcerpt: at most 1 KiB, valid UTF-8, no NUL.
func TestExcerpt(t *testing.T) {
	for _, body := range []string{strings.Repeat("é", 600), strings.Repeat("a", 1023) + "é", "ok\x00\xff", ""} {
		got := excerpt([]byte(body))
		if len(got) > loyalty.MaxResponseExcerpt || !utf8.ValidString(got) || strings.ContainsRune(got, 0) {
			t.Errorf("excerpt of %q...: %d bytes %q", body[:min(len(body), 10)], len(got), got[:min(len(got), 10)])
		}
	}
	if got := excerpt([]byte(`{"ok":true}`)); got != `{"ok":true}` {
		t.Errorf("short body: %q", got)
	}
}

// TestDeliveriesOf: one delivery per event and endpoint of its types
// created before the event.
func TestDeliveriesOf(t *testing.T) {
	older := loyalty.WebhookEndpoint{ID: loyalty.NewID(), EventTypes: []string{loyalty.EventCustomerCreated}}
	ev := loyalty.Event{ID: loyalty.NewID(), Type: loyalty.EventCustomerCreated, BusinessID: "b", Seq: 1, Data: []byte(`{}`)}
	other := loyalty.Event{ID: loyalty.NewID(), Type: loyalty.EventCouponIssued, BusinessID: "b", Seq: 2, Data: []byte(`{}`)}
	newer := loyalty.WebhookEndpoint{ID: loyalty.NewID(), EventTypes: []string{}}
	list, err := deliveriesOf([]loyalty.Event{ev, other}, []loyalty.WebhookEndpoint{older, newer})
	if err != nil || len(list) != 1 || list[0].EndpointID != older.ID || list[0].EventID != ev.ID ||
		!strings.Contains(string(list[0].Body), `"sequence":1`) {
		t.Errorf("deliveries %+v (%v), want the customer.created event to the older endpoint only", list, err)
	}
}
