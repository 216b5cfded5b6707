package loyalty

// TransactionJSON is a ledger entry on the wire (spec 2.4), as every
// reply shows it; the API adds what a request asks for (its balance on a
// write, its branch, details or e-commerce coupon on a list).
type TransactionJSON struct {
	ID              int64        `json:"id"`
	Intent          string       `json:"intent"`
	TransactionType int          `json:"transaction_type"`
	Name            string       `json:"name"`
	Amount          Money        `json:"amount"`
	Points          int64        `json:"points"`
	PendingPoints   int64        `json:"pending_points"` // of points, those that moved pending points
	Giftcard        Money        `json:"giftcard"`
	Visits          int64        `json:"visits"`
	Customer        any          `json:"customer"` // {id}, {id, balance} on a write, the customer with relationships=customer
	ReversesID      *int64       `json:"reverses_id"`
	Receipt         *ReceiptJSON `json:"receipt"`
	Comments        *string      `json:"comments"`
	CreatedAt       string       `json:"created_at"`
	UpdatedAt       string       `json:"updated_at"`
	CatalogItems    []ItemJSON   `json:"catalog_items,omitempty"`
	Coupon          *CouponJSON  `json:"coupon,omitempty"`
	// A reward's basket, on its reply and with relationships=items.
	Items       *[]BasketItemJSON `json:"items,omitempty"`
	Tax         *Money            `json:"tax,omitempty"`
	Shipping    *Money            `json:"shipping,omitempty"`
	Channel     *string           `json:"channel,omitempty"`
	UnknownSKUs *[]string         `json:"unknown_skus,omitempty"`
}

// BasketItemJSON is one line of a reward's basket: product_id and
// category_id are the product its SKU named (null: a SKU the business did
// not know).
type BasketItemJSON struct {
	SKU        string `json:"sku"`
	Quantity   int64  `json:"quantity"`
	Price      Money  `json:"price"`
	Discount   Money  `json:"discount"`
	ProductID  *int64 `json:"product_id"`
	CategoryID *int64 `json:"category_id"`
	// Points are what the line earned of a reward's points (what its units
	// took back, on a return).
	Points int64 `json:"points"`
}

// ReceiptJSON is the business's receipt a transaction is attached to.
type ReceiptJSON struct {
	Number string `json:"number"`
}

// ItemJSON is a catalog item of a redemption, with what it gave on the
// redemption's reply.
type ItemJSON struct {
	ID       int64 `json:"id"`
	Quantity int64 `json:"quantity"`
	Points   int64 `json:"points"`
	*ItemValueJSON
}

// ItemValueJSON is what a redeemed catalog item gives, on the reply of
// the redemption: its type, the money of the line (the free product's
// value or the cashback, of which giftcard went to the gift-card balance)
// and a percentage's discount for the point of sale to apply.
type ItemValueJSON struct {
	TypeID            *int   `json:"type_id"`
	Type              string `json:"type"`
	Amount            Money  `json:"amount"`
	Giftcard          Money  `json:"giftcard"`
	DiscountValue     Money  `json:"discount_value"`
	RedeemForGiftCard bool   `json:"redeem_for_gift_card"`
}

// CouponJSON is an issued coupon (spec 2.6).
type CouponJSON struct {
	ID           int64     `json:"id"`
	QRCode       string    `json:"qrcode"`
	CouponLocked bool      `json:"coupon_locked"`
	CouponTypeID int       `json:"coupon_type_id"`
	ExpiresAt    *string   `json:"expires_at"`
	Offer        OfferJSON `json:"offer"`
}

// OfferJSON is an offer on the wire (spec 2.5).
type OfferJSON struct {
	ID            int64   `json:"id"`
	TypeID        int     `json:"type_id"`
	Type          string  `json:"type"`
	Title         string  `json:"title"`
	Description   string  `json:"description"`
	Points        int64   `json:"points"`
	MultipFactor  Money   `json:"multip_factor"`
	DiscountValue Money   `json:"discount_value"`
	RealValue     Money   `json:"real_value"`
	ExpiresAt     *string `json:"expires_at"`
	Images        []Image `json:"images"`
}

// offerTypeNames are the offer types' names by type id.
var offerTypeNames = map[int]string{
	OfferPointsMultiplier: "points_multiplier", OfferFreeProduct: "free_product",
	OfferBonusPoints: "bonus_points", OfferBasic8: "free_product",
	OfferBasic9: "discount_percentage", OfferBasic10: "discount_amount",
}

// rewardTypeNames are the reference platform's names of the reward types.
var rewardTypeNames = map[int]string{RewardFreeProduct: "redeem_free_product",
	RewardCashback: "redeem_discount_amount", RewardPercentage: "redeem_discount_percentage"}

// RewardTypeName is a reward's type: the reference's name of its type_id,
// else its kind.
func RewardTypeName(r Reward) string {
	if n, ok := rewardTypeNames[r.TypeID]; ok {
		return n
	}
	return r.Kind
}

// NewOfferJSON is o on the wire.
func NewOfferJSON(o Offer) OfferJSON {
	images := o.Images
	if images == nil {
		images = []Image{}
	}
	return OfferJSON{ID: o.ID, TypeID: o.TypeID, Type: offerTypeNames[o.TypeID], Title: o.Title, Description: o.Description,
		Points: o.Points, MultipFactor: o.MultipFactor, DiscountValue: o.DiscountValue, RealValue: o.RealValue,
		ExpiresAt: OptTime(o.ExpiresAt), Images: images}
}

// NewCouponJSON is c on the wire, with its offer.
func NewCouponJSON(c Coupon) *CouponJSON {
	return &CouponJSON{ID: c.ID, QRCode: c.QRCode, CouponLocked: c.Locked, CouponTypeID: c.CouponTypeID,
		ExpiresAt: OptTime(c.ExpiresAt), Offer: NewOfferJSON(c.Offer)}
}

// newItemValueJSON is what a redeemed item gave, known on the
// redemption's reply only (nil otherwise).
func newItemValueJSON(it TransactionItem) *ItemValueJSON {
	r := it.Reward
	if r == nil {
		return nil
	}
	amount, giftcard := r.Value(it.Quantity)
	out := &ItemValueJSON{Type: RewardTypeName(*r), Amount: amount, Giftcard: giftcard, DiscountValue: r.DiscountValue,
		RedeemForGiftCard: r.RedeemForGiftCard}
	if r.TypeID != 0 {
		id := r.TypeID
		out.TypeID = &id
	}
	return out
}

// NewTransactionJSON is t on the wire, its customer as {id}.
func NewTransactionJSON(t Transaction) TransactionJSON {
	ts := FormatTime(t.CreatedAt)
	out := TransactionJSON{ID: t.ID, Intent: t.Intent, TransactionType: t.TypeCode, Name: t.Name, Amount: t.Amount,
		Points: t.Points, PendingPoints: t.Pending, Giftcard: t.Giftcard, Visits: t.Visits, Customer: map[string]string{"id": t.CustomerID},
		Comments: Nullable(t.Comments), CreatedAt: ts, UpdatedAt: ts}
	if t.Receipt != "" {
		out.Receipt = &ReceiptJSON{Number: t.Receipt}
	}
	if t.ReversesID != 0 {
		id := t.ReversesID
		out.ReversesID = &id
	}
	if t.ReturnsID == 0 && t.Basket != nil {
		t.ReturnsID = t.Basket.ReturnsID
	}
	if t.ReturnsID != 0 {
		id := t.ReturnsID
		out.ReversesID = &id
	}
	for _, it := range t.Items {
		out.CatalogItems = append(out.CatalogItems, ItemJSON{ID: it.RewardID, Quantity: it.Quantity, Points: it.Points,
			ItemValueJSON: newItemValueJSON(it)})
	}
	if t.Coupon != nil {
		out.Coupon = NewCouponJSON(*t.Coupon)
	}
	if b := t.Basket; b != nil {
		items, unknown := make([]BasketItemJSON, len(b.Lines)), append([]string{}, b.UnknownSKUs...)
		for i, l := range b.Lines {
			items[i] = BasketItemJSON{SKU: l.SKU, Quantity: l.Quantity, Price: l.Price, Discount: l.Discount,
				ProductID: nonZero(l.ProductID), CategoryID: nonZero(l.CategoryID), Points: l.Points}
		}
		tax, shipping, channel := b.Tax, b.Shipping, b.Channel
		out.Items, out.Tax, out.Shipping, out.Channel, out.UnknownSKUs = &items, &tax, &shipping, &channel, &unknown
	}
	return out
}

// nonZero is n, or nil for 0.
func nonZero(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}
