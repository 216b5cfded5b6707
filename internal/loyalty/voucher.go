package loyalty

import (
	"crypto/rand"
	"strings"
	"time"
)

// A voucher is what a member's own redemption gives them: the points are
// spent at once (a redemption entry), and the counter hands the reward
// over when it scans the voucher's code, once. A voucher not handed over
// before it expires gives its points back by an entry that reverses the
// redemption; so does a cancellation of the redemption.

// VoucherLife is how long a voucher waits to be handed over.
const VoucherLife = 30 * 24 * time.Hour

// States of a voucher.
const (
	VoucherIssued     = "issued"      // waiting to be handed over
	VoucherHandedOver = "handed_over" // the counter handed the reward over
	VoucherReturned   = "returned"    // its points were given back (expired, or the redemption cancelled)
	VoucherExpired    = "expired"     // past its expiry, its points not yet given back
)

// Voucher is a reward a member redeemed, waiting for the counter.
type Voucher struct {
	ID         string
	BusinessID string
	CustomerID string
	EntryID    int64 // the redemption that spent its points
	RewardID   int64
	Quantity   int64
	Points     int64 // the points the redemption spent
	Code       string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	// HandedOverAt is when the counter handed the reward over, by whom (a
	// staff member's e-mail or an app's name) and at which branch.
	HandedOverAt     time.Time
	HandedOverBy     string
	HandedOverBranch string
	// ReturnedAt is when its points were given back, by ReturnEntryID.
	ReturnedAt    time.Time
	ReturnEntryID int64
	Reward        *Reward // the reward redeemed, when read with it
}

// State is the voucher's state at now.
func (v Voucher) State(now time.Time) string {
	switch {
	case !v.HandedOverAt.IsZero():
		return VoucherHandedOver
	case !v.ReturnedAt.IsZero():
		return VoucherReturned
	case !now.Before(v.ExpiresAt):
		return VoucherExpired
	}
	return VoucherIssued
}

// voucherAlphabet is Crockford's base 32: no I, L, O or U, so a code read
// aloud or typed from a screen is not mistaken.
const voucherAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// newVoucherCode returns a random code of 12 characters (60 bits) in two
// groups, as a member reads it out: "7K3MQ9-TXAB2Z" is typed as well as
// scanned.
func newVoucherCode() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	out := make([]byte, 0, 13)
	for i, c := range b {
		if i == 6 {
			out = append(out, '-')
		}
		out = append(out, voucherAlphabet[c&31])
	}
	return string(out)
}

// NormalVoucherCode is a code as typed or scanned, in the form vouchers
// keep: upper case, its two groups joined by one dash, Crockford's
// look-alikes read as the digits they stand for. It reports false for
// text that cannot be a voucher's code.
func NormalVoucherCode(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	s = strings.NewReplacer("-", "", " ", "", "O", "0", "I", "1", "L", "1").Replace(s)
	if len(s) != 12 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(voucherAlphabet, s[i]) < 0 {
			return "", false
		}
	}
	return s[:6] + "-" + s[6:], true
}
