package loyalty

// Type codes of ledger entries (transaction_type). They are the reference
// platform's: its transactions docs publish a table of type names and ids,
// and a client written against it filters with transaction_type=eq|N and
// shows name, so each kind written here takes the code and the name of
// the table's row closest in meaning. A kind the table has no row for has
// a code above 1000 (its code before the reference's were adopted, plus
// 1000), so it can never collide with one of theirs. docs/transaction-types.md
// lists them all, with the codes they replaced.
const (
	// TypeCodeReward is points earned by a purchase (intent reward).
	TypeCodeReward = 4
	// TypeCodeRedeem is points spent (intent redeem with points).
	TypeCodeRedeem = 5
	// TypeCodeSignupBonus is a new customer's welcome points.
	TypeCodeSignupBonus = 33
	// TypeCodeRedeemCatalog is catalog items redeemed for points.
	TypeCodeRedeemCatalog = 43
	// TypeCodeCancellation reverses a cancelled entry. The reference's
	// row is a cancellation by a clerk, which is what ours is: someone of
	// the business (the API's owner token or the console) cancels it.
	TypeCodeCancellation = 44
	// TypeCodeReturn takes back the points of a returned purchase (intent
	// return): the reference's "Refund - Points" is that, the points of a
	// refunded purchase, where 107 gives back redeemed points.
	TypeCodeReturn = 64
	// TypeCodeCouponTagged issues a coupon to the customer (get_coupon);
	// the reference's own get_coupon example answers this name.
	TypeCodeCouponTagged = 74
	// TypeCodeCouponClaimed redeems an issued coupon (claim_coupon).
	TypeCodeCouponClaimed = 75
	// TypeCodeReferredRewarded pays the referee of a referral.
	TypeCodeReferredRewarded = 76
	// TypeCodeReferrerRewarded pays the referrer of a referral.
	TypeCodeReferrerRewarded = 77
	// TypeCodeTransferSent is points a member sent another (the user
	// API's transfers).
	TypeCodeTransferSent = 58
	// TypeCodeTransferReceived is points a member received from another,
	// or got back from a transfer recalled or not received in time.
	TypeCodeTransferReceived = 59
	// TypeCodeAdjustUp adds points by hand (adjust_points_balance > 0).
	TypeCodeAdjustUp = 80
	// TypeCodeAdjustDown takes points by hand (adjust_points_balance < 0).
	TypeCodeAdjustDown = 82
	// TypeCodeGiftcardBuy sells gift-card credit in store
	// (purchase_giftcard_prepaid): the reference's docs say that intent
	// writes "Giftcard Purchase - At Store". Its table has two rows of that
	// name, 70 and 85; 85 is the one among the gift-card balance kinds
	// (84 to 88, with 88 Giftcard Payment, our giftcard_payment).
	TypeCodeGiftcardBuy = 85
	// TypeCodeGiftcardPay pays from the gift-card balance.
	TypeCodeGiftcardPay = 88
	// TypeCodeConvertibleTagged issues a convertible coupon (get_coupon of
	// a convertible offer, bought with points): its coupon_type_id is 91 too.
	TypeCodeConvertibleTagged = 91
	// TypeCodeConvertibleClaimed redeems a convertible coupon.
	TypeCodeConvertibleClaimed = 92
	// TypeCodeRefundRedeemed gives back redeemed points (refund_redeemed_points).
	TypeCodeRefundRedeemed = 107
	// TypeCodeStoreCredit adds money to the gift-card balance
	// (reward_store_credit). The reference names its entry "Store Credit"
	// in its own examples but gives it no row: its 102 Cash-back is a
	// share of a purchase, and 84 is gift-card credit bought, not given.
	TypeCodeStoreCredit = 1012
	// TypeCodeActivation activates a lot's pending points (no row there:
	// the reference keeps no pending points).
	TypeCodeActivation = 1017
	// TypeCodeExpiry expires what is left of a lot (no row there).
	TypeCodeExpiry = 1018
)

// typeNames is the one table of the type codes the service writes and
// their names: the reference table's name, as its page shows it, or ours
// for a code above 1000.
var typeNames = map[int]string{
	TypeCodeReward:             "Reward",
	TypeCodeRedeem:             "Redemption",
	TypeCodeSignupBonus:        "Signup Bonus",
	TypeCodeRedeemCatalog:      "Redemption - Catalog",
	TypeCodeCancellation:       "Transaction Canceled - Clerk",
	TypeCodeReturn:             "Refund - Points",
	TypeCodeCouponTagged:       "Coupon Tagged",
	TypeCodeCouponClaimed:      "Coupon claimed",
	TypeCodeReferredRewarded:   "Referred rewarded",
	TypeCodeReferrerRewarded:   "Referrer rewarded",
	TypeCodeTransferSent:       "Points Transfer - Sender",
	TypeCodeTransferReceived:   "Points Transfer - Receiver",
	TypeCodeAdjustUp:           "Adjust Increase Points",
	TypeCodeAdjustDown:         "Adjust Decrease Points",
	TypeCodeGiftcardBuy:        "Giftcard Purchase - At Store",
	TypeCodeGiftcardPay:        "Giftcard Payment",
	TypeCodeConvertibleTagged:  "Convertible Coupon created",
	TypeCodeConvertibleClaimed: "Convertible Coupon redeemed",
	TypeCodeRefundRedeemed:     "Refund - Redeemed Points",
	TypeCodeStoreCredit:        "Store Credit",
	TypeCodeActivation:         "Points Activated",
	TypeCodeExpiry:             "Points Expired",
}

// TypeName returns the name of a type code, "" for one the service never
// writes.
func TypeName(code int) string { return typeNames[code] }

// TypeCodes returns every type code the service writes, in no order.
func TypeCodes() []int {
	codes := make([]int, 0, len(typeNames))
	for c := range typeNames {
		codes = append(codes, c)
	}
	return codes
}

// intentTypes is the type an entry of each intent starts with; typed
// refines it where one intent writes several of the reference's kinds.
var intentTypes = map[string]int{
	IntentReward: TypeCodeReward, IntentRedeem: TypeCodeRedeem, IntentReturn: TypeCodeReturn,
	IntentAdjust: TypeCodeAdjustUp, IntentGetCoupon: TypeCodeCouponTagged, IntentClaimCoupon: TypeCodeCouponClaimed,
	IntentGiftcardBuy: TypeCodeGiftcardBuy, IntentGiftcardPay: TypeCodeGiftcardPay, IntentStoreCredit: TypeCodeStoreCredit,
	IntentReferral: TypeCodeReferredRewarded, IntentWelcome: TypeCodeSignupBonus, IntentCancellation: TypeCodeCancellation,
	IntentRefund: TypeCodeRefundRedeemed, IntentActivation: TypeCodeActivation, IntentExpiry: TypeCodeExpiry,
	IntentTransferOut: TypeCodeTransferSent, IntentTransferIn: TypeCodeTransferReceived,
}

// setType gives the entry a type code and that code's name.
func (t *Transaction) setType(code int) { t.TypeCode, t.Name = code, typeNames[code] }

// typed settles the entry's type once what it did is known, just before
// it is written: a redemption of catalog items is not one of points, an
// adjustment goes up or down, and a coupon is a convertible one or not.
// The referral intent's two sides are told apart where they are paid.
func (t *Transaction) typed() {
	switch t.Intent {
	case IntentRedeem:
		if len(t.Items) > 0 {
			t.setType(TypeCodeRedeemCatalog)
		} else {
			t.setType(TypeCodeRedeem)
		}
	case IntentAdjust:
		if t.Points < 0 {
			t.setType(TypeCodeAdjustDown)
		} else {
			t.setType(TypeCodeAdjustUp)
		}
	case IntentGetCoupon:
		if t.Coupon != nil && t.Coupon.CouponTypeID == CouponConvertible {
			t.setType(TypeCodeConvertibleTagged)
		} else {
			t.setType(TypeCodeCouponTagged)
		}
	case IntentClaimCoupon:
		if t.Coupon != nil && t.Coupon.CouponTypeID == CouponConvertibleRedeemed {
			t.setType(TypeCodeConvertibleClaimed)
		} else {
			t.setType(TypeCodeCouponClaimed)
		}
	}
}
