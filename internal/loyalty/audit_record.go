package loyalty

// The console's use cases (internal/console) record their actions in the
// audit log through Audited; the log's actions are named here, next to
// the log, so that the log and the pages reading it share one vocabulary.

// Audit actions of the customer desk and the counter.
const (
	AuditCustomerCreated   = "customer.created"
	AuditCustomerUpdated   = "customer.updated"
	AuditCustomerEnabled   = "customer.enabled"
	AuditCustomerDisabled  = "customer.disabled"
	AuditCustomerDeleted   = "customer.deleted"
	AuditCustomerWelcomed  = "customer.welcome_resent"
	AuditCustomerErased    = "customer.erased"
	AuditConsentChanged    = "customer.consent_changed"
	AuditPointsAdjusted    = "points.adjusted"
	AuditTransactionCancel = "transaction.cancelled"
	AuditCouponIssued      = "coupon.issued"
	AuditCouponGifted      = "coupon.gifted"
	// AuditTransactionDetails is a change of an entry's transaction_details
	// (through the API: PATCH /transactions/{id}/details).
	AuditTransactionDetails = "transaction.details_updated"
	AuditSaleRecorded       = "counter.sale"
	AuditRewardRedeemed     = "counter.redeem"
	AuditCouponClaimed      = "counter.coupon_claimed"
	AuditGiftcardSold       = "counter.giftcard_sold"
	AuditGiftcardPaid       = "counter.giftcard_payment"
	AuditVoucherHandedOver  = "counter.voucher_handed_over"
)

// Audit actions of the exports, which take the customers' personal data
// out of the service.
const (
	AuditCustomersExported = "customers.exported"
	AuditLedgerExported    = "ledger.exported"
)

// Audit actions of the program's setup.
const (
	AuditRulesUpdated   = "rules.updated"
	AuditProgramCreated = "program.created"
	AuditProgramUpdated = "program.updated"
	AuditProgramDeleted = "program.deleted"
)

// AuditAmount reports whether an audit entry's setting is an amount of
// money (written as the wire writes it, "12.50"): of a sale at the
// counter, or of the earning rules. The entry's own "currency" setting,
// when it has one, is the currency of its amounts.
func AuditAmount(field string) bool {
	switch field {
	case "amount", "reward_milestone_amount", "redemption_amount":
		return true
	}
	return false
}

// Audited runs change with the record of the actor's action on target:
// change makes its writes through stores or services that write the
// record (AuditedStore, Services.AuditedBy), whose transaction that
// commits first writes the entry with its change; a change that commits
// without it is reported as a bug. before and after are the settings the
// action changed, nil when it changed none.
func Audited(a Actor, action, target string, before, after map[string]string, change func(*AuditRecord) error) error {
	return audited(a, action, target, before, after, change)
}

// changed keeps only the fields whose value differs, and with amounts
// that changed the currency they are in.
func changed(before, after map[string]string) (map[string]string, map[string]string) {
	curBefore, hadBefore := before["currency"]
	curAfter, hadAfter := after["currency"]
	amounts := false
	for k, v := range before {
		if after[k] == v {
			delete(before, k)
			delete(after, k)
		} else if AuditAmount(k) {
			amounts = true
		}
	}
	// Amounts that changed keep the currency they are in, changed or not.
	if amounts && hadBefore && hadAfter {
		before["currency"], after["currency"] = curBefore, curAfter
	}
	return before, after
}

// Audit actions only the business API makes: its webhook endpoints.
const (
	AuditWebhookCreated = "webhook.created"
	AuditWebhookUpdated = "webhook.updated"
	AuditWebhookDeleted = "webhook.deleted"
	AuditWebhookRotated = "webhook.secret_rotated"
)
