package loyalty

import (
	"context"
	"time"
)

// Store is the storage the domain services need. Reads run on their own;
// every change runs inside WithTx, as one database transaction.
type Store interface {
	AccountStore
	CustomerReader
	BusinessTagReader
	ReferralReader
	TransactionReader
	CatalogReader
	ProductReader
	EarningRuleReader
	PunchCardReader
	TierReader
	UserReader
	EventStore
	WebhookStore
	LotReader
	LotStore
	ReportStore
	NoticeStore
	TierRollStore
	VoucherReader
	ConsentReader
	ExportReader
	TransferReader
	SegmentStore
	CampaignStore
	AutomationStore
	CustomerTagReader
	// WithTx runs fn in one transaction, committing when fn returns nil.
	// The Tx carries one fixed Now for the whole change.
	WithTx(ctx context.Context, fn func(Tx) error) error
	// WithTxOptions is WithTx for a transaction that carries options: the
	// clock that dates it, and the audit entry and import mark it writes
	// before committing (TxOptions). After it commits the store calls
	// opts.Committed.
	WithTxOptions(ctx context.Context, opts TxOptions, fn func(Tx) error) error
	// AppendAlone writes an entry without catalog items and moves the
	// balance as a change of its own, outside WithTx, when the customer
	// allows it as it stands: an active customer of the business with no
	// referral waiting, a balance that stays at or above zero, and the
	// entry's branch (if any) one of the business's. Otherwise it writes
	// nothing and reports false, and the caller takes the transactional
	// path, which explains the refusal or does what else the entry needs.
	// It sets t.ID and t.Balance. When t.Event is set, the event it
	// builds is written with the entry, in the same change; so is the
	// entry's basket (t.Basket), when it carries one.
	AppendAlone(ctx context.Context, t *Transaction) (bool, error)
}

// Tx is one transaction: the small steps the services combine.
type Tx interface {
	// Now is the time of the whole change, in UTC.
	Now() time.Time
	CustomerTx
	ReferralTx
	TransactionTx
	TransactionDetailsTx
	CatalogTx
	ProductTx
	ReturnTx
	EarningRuleTx
	PunchCardTx
	TierTx
	TierKeepTx
	UserTx
	EventTx
	LotTx
	NoticeTx
	VoucherTx
	ConsentTx
	ErasureTx
	TransferTx
	SegmentTx
	CampaignTx
	AutomationTx
	CustomerTagTx
}
