package loyalty

import "time"

// How a referral was settled.
const (
	ReferralPaid      = "paid"      // both were paid on a qualifying purchase
	ReferralExpired   = "expired"   // no qualifying purchase within the program's days
	ReferralForfeited = "forfeited" // the program was disabled before it qualified
)

// Referral links a referee to the customer who referred them.
type Referral struct {
	ID         int64
	BusinessID string
	ProgramID  int64
	ReferrerID string
	RefereeID  string
	CreatedAt  time.Time
	Paid       bool
}
