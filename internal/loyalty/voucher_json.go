package loyalty

import "time"

// VoucherJSON is a voucher as the APIs and its events show it.
type VoucherJSON struct {
	ID            string             `json:"id"`
	Code          string             `json:"code"`
	QRCode        string             `json:"qrcode"` // what the voucher's QR code holds: its code
	State         string             `json:"state"`
	Reward        VoucherRewardJSON  `json:"reward"`
	Quantity      int64              `json:"quantity"`
	Points        int64              `json:"points"`
	TransactionID int64              `json:"transaction_id"`
	Business      idJSON             `json:"business"`
	Customer      idJSON             `json:"customer"`
	CreatedAt     string             `json:"created_at"`
	ExpiresAt     string             `json:"expires_at"`
	HandedOverAt  *string            `json:"handed_over_at"`
	HandedOverBy  *string            `json:"handed_over_by"`
	Branch        *idJSON            `json:"branch"` // where it was handed over
	ReturnedAt    *string            `json:"returned_at"`
	Return        *TransactionIDJSON `json:"return_transaction"`
}

// VoucherRewardJSON is the reward a voucher is for.
type VoucherRewardJSON struct {
	ID     int64  `json:"id"`
	Title  string `json:"title"`
	Points int64  `json:"points"` // the reward's points, each
}

// TransactionIDJSON names a ledger entry.
type TransactionIDJSON struct {
	ID int64 `json:"id"`
}

// NewVoucherJSON renders v as it stands at now.
func NewVoucherJSON(v Voucher, now time.Time) VoucherJSON {
	out := VoucherJSON{ID: v.ID, Code: v.Code, QRCode: v.Code, State: v.State(now), Quantity: v.Quantity, Points: v.Points,
		TransactionID: v.EntryID, Business: idJSON{ID: v.BusinessID}, Customer: idJSON{ID: v.CustomerID}, CreatedAt: FormatTime(v.CreatedAt),
		ExpiresAt: FormatTime(v.ExpiresAt), Reward: VoucherRewardJSON{ID: v.RewardID}}
	if v.Reward != nil {
		out.Reward.Title, out.Reward.Points = v.Reward.Title, v.Reward.Points
	}
	if !v.HandedOverAt.IsZero() {
		at, by := FormatTime(v.HandedOverAt), v.HandedOverBy
		out.HandedOverAt, out.HandedOverBy, out.Branch = &at, &by, &idJSON{ID: v.HandedOverBranch}
	}
	if !v.ReturnedAt.IsZero() {
		at := FormatTime(v.ReturnedAt)
		out.ReturnedAt, out.Return = &at, &TransactionIDJSON{ID: v.ReturnEntryID}
	}
	return out
}
