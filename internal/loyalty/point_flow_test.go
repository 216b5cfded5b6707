package loyalty_test

import (
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestReportFlowCodes: each kind of entry goes to the flow the points
// report names for it: points added are issued, points taken spent, an
// expiry's points expired and an activation's pending points activated
// (neither of those two issued nor spent), and what a reversal takes or
// gives back reversed (neither issued nor redeemed); every entry changes
// the usable and pending points by what it moved.
func TestReportFlowCodes(t *testing.T) {
	codes := loyalty.ReportFlowCodes()
	for _, c := range []struct {
		name            string
		code            int
		points, pending int64
		want            loyalty.PointFlows
	}{
		{"reward", loyalty.TypeCodeReward, 120, 0, loyalty.PointFlows{Issued: 120, Active: 120}},
		{"pending reward", loyalty.TypeCodeReward, 120, 120, loyalty.PointFlows{Issued: 120, Pending: 120}},
		{"redemption", loyalty.TypeCodeRedeem, -50, 0, loyalty.PointFlows{Spent: 50, Active: -50}},
		{"adjustment up", loyalty.TypeCodeAdjustUp, 9, 0, loyalty.PointFlows{Issued: 9, Active: 9}},
		{"adjustment down", loyalty.TypeCodeAdjustDown, -9, 0, loyalty.PointFlows{Spent: 9, Active: -9}},
		{"return of pending points", loyalty.TypeCodeReturn, -30, -30, loyalty.PointFlows{Reversed: 30, Pending: -30}},
		{"cancellation", loyalty.TypeCodeCancellation, -120, 0, loyalty.PointFlows{Reversed: 120, Active: -120}},
		{"cancellation of a pending reward", loyalty.TypeCodeCancellation, -120, -120, loyalty.PointFlows{Reversed: 120, Pending: -120}},
		{"cancellation of a redemption", loyalty.TypeCodeCancellation, 50, 0, loyalty.PointFlows{Reversed: -50, Active: 50}},
		{"voucher given back", loyalty.TypeCodeRefundRedeemed, 30, 0, loyalty.PointFlows{Reversed: -30, Active: 30}},
		{"transfer sent", loyalty.TypeCodeTransferSent, -20, 0, loyalty.PointFlows{Spent: 20, Active: -20}},
		{"expiry", loyalty.TypeCodeExpiry, -40, 0, loyalty.PointFlows{Expired: 40, Active: -40}},
		{"expiry of pending points", loyalty.TypeCodeExpiry, -40, -40, loyalty.PointFlows{Expired: 40, Pending: -40}},
		{"activation", loyalty.TypeCodeActivation, 0, -70, loyalty.PointFlows{Activated: 70, Active: 70, Pending: -70}},
		{"entry of no points", loyalty.TypeCodeCouponClaimed, 0, 0, loyalty.PointFlows{}},
	} {
		if got := codes.Flows(c.code, c.points, c.pending); got != c.want {
			t.Errorf("%s: flows %+v, want %+v", c.name, got, c.want)
		}
	}
}
