package loyalty

import (
	"context"
	"slices"
	"time"
)

// MemberExport is everything the service holds about a member in the
// businesses of a program: the person's own record, and in each business
// the profile with its balance, the consents and notification preferences
// with their history, every ledger entry, the coupons and vouchers; and
// the messages sent to the member's addresses (what, when and whether
// delivered; not their text, which holds codes and links still valid).
type MemberExport struct {
	ExportedAt string                 `json:"exported_at"`
	Person     UserJSON               `json:"person"`
	Businesses []MemberBusinessExport `json:"businesses"`
	Messages   []MessageExport        `json:"messages"`
}

// MemberBusinessExport is what one business holds about the member.
type MemberBusinessExport struct {
	Business                BusinessRefJSON   `json:"business"`
	Customer                CustomerJSON      `json:"customer"`
	Consents                []ConsentJSON     `json:"consents"`
	NotificationPreferences []ConsentJSON     `json:"notification_preferences"`
	Transactions            []TransactionJSON `json:"transactions"`
	Coupons                 []*CouponJSON     `json:"coupons"`
	Vouchers                []VoucherJSON     `json:"vouchers"`
}

// BusinessRefJSON names a business.
type BusinessRefJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// MessageExport is one message sent to the member.
type MessageExport struct {
	Channel   string  `json:"channel"`
	To        string  `json:"to"`
	Subject   string  `json:"subject"`
	Status    string  `json:"status"`
	CreatedAt string  `json:"created_at"`
	SentAt    *string `json:"sent_at"`
}

// SentMessage is a message of the outbox as an export shows it.
type SentMessage struct {
	Message
	Status string
	SentAt time.Time
}

// Export gathers a member's data in the program's businesses.
func (s *UserService) Export(ctx context.Context, p Program, userID string) (MemberExport, error) {
	person, err := s.Person(ctx, userID)
	if err != nil {
		return MemberExport{}, err
	}
	now := s.Store.Now()
	out := MemberExport{ExportedAt: FormatTime(now), Person: NewUserJSON(person), Businesses: []MemberBusinessExport{},
		Messages: []MessageExport{}}
	ms, err := s.Memberships(ctx, p, userID)
	if err != nil {
		return MemberExport{}, err
	}
	addresses := []string{person.Email, person.Phone}
	for _, m := range ms {
		b := m.Business
		x := MemberBusinessExport{Consents: []ConsentJSON{}, NotificationPreferences: []ConsentJSON{},
			Transactions: []TransactionJSON{}, Coupons: []*CouponJSON{}, Vouchers: []VoucherJSON{}}
		x.Business = BusinessRefJSON{ID: b.ID, Name: b.Name}
		c, err := s.Store.Customer(ctx, b.ID, userID)
		if err != nil {
			return MemberExport{}, err
		}
		x.Customer = NewCustomerJSON(c, true, nil)
		addresses = append(addresses, c.Email, c.Phone)
		for kind, to := range map[string]*[]ConsentJSON{ConsentMarketing: &x.Consents, ConsentNotifications: &x.NotificationPreferences} {
			list, err := s.Store.Consents(ctx, b.ID, userID, kind)
			if err != nil {
				return MemberExport{}, err
			}
			*to = ConsentListJSON(list)
		}
		entries, err := allPages(func(q ListQuery) ([]Transaction, int, error) {
			return s.Store.CustomerTransactions(ctx, b.ID, userID, q)
		})
		if err != nil {
			return MemberExport{}, err
		}
		for _, e := range entries {
			x.Transactions = append(x.Transactions, NewTransactionJSON(e))
		}
		coupons, err := s.Store.CustomerCoupons(ctx, b.ID, userID)
		if err != nil {
			return MemberExport{}, err
		}
		for _, cp := range coupons {
			x.Coupons = append(x.Coupons, NewCouponJSON(cp))
		}
		vouchers, err := s.Store.CustomerVouchers(ctx, b.ID, userID)
		if err != nil {
			return MemberExport{}, err
		}
		for _, v := range vouchers {
			x.Vouchers = append(x.Vouchers, NewVoucherJSON(v, now))
		}
		out.Businesses = append(out.Businesses, x)
	}
	slices.Sort(addresses)
	addresses = slices.DeleteFunc(slices.Compact(addresses), func(a string) bool { return a == "" })
	msgs, err := s.Store.MessagesTo(ctx, addresses)
	if err != nil {
		return MemberExport{}, err
	}
	for _, m := range msgs {
		e := MessageExport{Channel: m.Channel, To: m.To, Subject: m.Subject, Status: m.Status, CreatedAt: FormatTime(m.CreatedAt)}
		if !m.SentAt.IsZero() {
			at := FormatTime(m.SentAt)
			e.SentAt = &at
		}
		out.Messages = append(out.Messages, e)
	}
	return out, nil
}
