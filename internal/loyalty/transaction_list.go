package loyalty

import "context"

// What the ledger lists may be asked for.
var (
	// TransactionListSpec says how GET /transactions is filtered.
	TransactionListSpec = listSpecOf(map[string]FilterKind{
		"created_at": KindTime, "updated_at": KindTime, "customer.id": KindString,
		"transaction_details.external_order_id": KindString,
	}, 100)
	// TransactionListRelationships are the relationships GET /transactions shows.
	TransactionListRelationships = []string{"customer", "transaction_details", "transaction_sequences", "items"}
	// HistoryListSpec says how GET /customers/{id}/transactions is filtered.
	HistoryListSpec = listSpecOf(map[string]FilterKind{
		"created_at": KindTime, "updated_at": KindTime, "transaction_type": KindInt, "branch.id": KindString,
	}, 15)
	// HistoryRelationships and HistoryIncludes are what a customer's
	// history can show with each entry.
	HistoryRelationships = []string{"branch", "transaction_details", "transaction_sequences", "items"}
	HistoryIncludes      = []string{"ecom_coupon"}
)

func listSpecOf(fields map[string]FilterKind, perPage int) ListSpec {
	return ListSpec{Fields: fields, Reserved: []string{"include", "relationships"}, DefaultPerPage: perPage}
}

// TransactionPage is a page of ledger entries with what was asked to come
// with them.
type TransactionPage struct {
	Entries   []Transaction
	Total     int
	Branches  map[string]Branch   // the business's branches by id, when asked for
	Coupons   map[int64]Coupon    // the coupons the entries touched, when asked for
	Customers map[string]Customer // the entries' customers by id, when asked for
	// Sequences are, by entry id, the entries that followed from it (its
	// cancellation), when asked for.
	Sequences map[int64][]Transaction
}

// TransactionWith names what a ledger page brings with its entries.
type TransactionWith struct {
	Branches  bool
	Coupons   bool
	Customers bool
	Sequences bool
	Items     bool // a reward's basket (its lines, tax, shipping and channel), or a return by item's
}

// withBaskets sets the basket of each entry that has one.
func (s *TransactionService) withBaskets(ctx context.Context, b Business, entries []Transaction) error {
	ids := make([]int64, 0, len(entries))
	for _, e := range entries {
		if e.Intent == IntentReward || e.Intent == IntentReturn {
			ids = append(ids, e.ID)
		}
	}
	baskets, err := s.Store.Baskets(ctx, b.ID, ids)
	for i := range entries {
		entries[i].Basket = baskets[entries[i].ID]
	}
	return err
}

// List pages a business's ledger, newest first, with the customers asked
// for.
func (s *TransactionService) List(ctx context.Context, b Business, q ListQuery, with TransactionWith) (TransactionPage, error) {
	var p TransactionPage
	var err error
	if p.Entries, p.Total, err = s.Store.Transactions(ctx, b.ID, q); err != nil {
		return p, err
	}
	if with.Items {
		if err := s.withBaskets(ctx, b, p.Entries); err != nil {
			return p, err
		}
	}
	if with.Sequences {
		if p.Sequences, err = s.sequences(ctx, b, p.Entries); err != nil {
			return p, err
		}
	}
	if !with.Customers {
		return p, nil
	}
	ids := []string{}
	seen := map[string]bool{}
	for _, e := range p.Entries {
		if !seen[e.CustomerID] {
			seen[e.CustomerID] = true
			ids = append(ids, e.CustomerID)
		}
	}
	p.Customers, err = s.Store.CustomersByID(ctx, b.ID, ids)
	return p, err
}

// History pages a customer's ledger entries, newest first, with the
// branches and coupons asked for.
func (s *TransactionService) History(ctx context.Context, b Business, customerID string, q ListQuery, with TransactionWith) (TransactionPage, error) {
	id, err := customerIDOf(customerID)
	if err != nil {
		return TransactionPage{}, err
	}
	var p TransactionPage
	if p.Entries, p.Total, err = s.Store.CustomerTransactions(ctx, b.ID, id, q); err != nil {
		return p, err
	}
	if with.Items {
		if err := s.withBaskets(ctx, b, p.Entries); err != nil {
			return p, err
		}
	}
	if with.Sequences {
		if p.Sequences, err = s.sequences(ctx, b, p.Entries); err != nil {
			return p, err
		}
	}
	if with.Branches {
		all, err := s.Store.Branches(ctx, b.ID)
		if err != nil {
			return p, err
		}
		p.Branches = map[string]Branch{}
		for _, br := range all {
			p.Branches[br.ID] = br
		}
	}
	if with.Coupons {
		p.Coupons = map[int64]Coupon{}
		for _, e := range p.Entries {
			if e.CouponID == 0 {
				continue
			}
			c, err := s.Store.CouponByID(ctx, b.ID, e.CouponID)
			if err != nil && ErrorCode(err) != ENotFound {
				return p, err
			}
			if err == nil {
				p.Coupons[c.ID] = c
			}
		}
	}
	return p, nil
}

// sequences finds, for each of entries, the entries that followed from it:
// the reference's transaction_sequences. Here an entry is followed by its
// cancellation (the entry whose reverses_id it is), the one later entry
// the ledger ties to an earlier one.
func (s *TransactionService) sequences(ctx context.Context, b Business, entries []Transaction) (map[int64][]Transaction, error) {
	ids := make([]int64, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	next, err := s.Store.ReversalsOf(ctx, b.ID, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64][]Transaction{}
	for _, n := range next {
		out[n.ReversesID] = append(out[n.ReversesID], n)
	}
	return out, nil
}
