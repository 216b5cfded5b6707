package loyalty

import (
	"testing"
	"time"
)

// TestVoucherCodes: a new code is in the form the counter reads back, and
// what a cashier types (lower case, without the dash, O for 0, I or L for
// 1) finds it; anything else is no code.
func TestVoucherCodes(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		c := newVoucherCode()
		if n, ok := NormalVoucherCode(c); !ok || n != c {
			t.Fatalf("code %q reads back as %q, %v", c, n, ok)
		}
		if seen[c] {
			t.Fatalf("code %q twice in 1000", c)
		}
		seen[c] = true
	}
	for in, want := range map[string]string{"7k3mq9txab2z": "7K3MQ9-TXAB2Z", " 7K3MQ9 TXAB2Z ": "7K3MQ9-TXAB2Z",
		"OOOOOO-IIIILL": "000000-111111"} {
		if got, ok := NormalVoucherCode(in); !ok || got != want {
			t.Errorf("NormalVoucherCode(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "ABC", "7K3MQ9-TXAB2", "7K3MQ9-TXAB2ZZ", "7K3MQ9-TXAB2U", "ann@example.com"} {
		if got, ok := NormalVoucherCode(in); ok {
			t.Errorf("NormalVoucherCode(%q) = %q, want no code", in, got)
		}
	}
}

// TestVoucherState: waiting until its expiry, then expired until its
// points are given back; handed over stays handed over.
func TestVoucherState(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	v := Voucher{CreatedAt: at, ExpiresAt: at.Add(VoucherLife)}
	for _, c := range []struct {
		v    Voucher
		now  time.Time
		want string
	}{
		{v, at, VoucherIssued},
		{v, v.ExpiresAt.Add(-time.Second), VoucherIssued},
		{v, v.ExpiresAt, VoucherExpired},
		{Voucher{ExpiresAt: v.ExpiresAt, ReturnedAt: v.ExpiresAt}, v.ExpiresAt, VoucherReturned},
		{Voucher{ExpiresAt: v.ExpiresAt, HandedOverAt: at}, v.ExpiresAt.Add(time.Hour), VoucherHandedOver},
	} {
		if got := c.v.State(c.now); got != c.want {
			t.Errorf("state at %v of %+v = %s, want %s", c.now, c.v, got, c.want)
		}
	}
}
