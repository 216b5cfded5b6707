package loyalty

import "context"

// ConsentService keeps the customers' choices of what they hear.
type ConsentService struct {
	Store Store
}

// ConsentState is a customer's choice of a kind in force, with the
// records that made it, newest first (none while it is the default).
type ConsentState struct {
	BusinessID string
	ContactChannels
	History []Consent
}

// State returns a customer's choice of a kind and its history; a
// customer the business does not have is ENotFound.
func (s *ConsentService) State(ctx context.Context, b Business, customerID, kind string) (ConsentState, error) {
	if _, err := s.Store.Customer(ctx, b.ID, customerID); err != nil {
		return ConsentState{}, notFoundField(err, "Customer not found.")
	}
	list, err := s.Store.Consents(ctx, b.ID, customerID, kind)
	if err != nil {
		return ConsentState{}, err
	}
	out := ConsentState{BusinessID: b.ID, ContactChannels: defaultChannels(kind), History: list}
	if len(list) > 0 {
		out.ContactChannels = list[0].ContactChannels
	}
	return out, nil
}

// Change records a customer's new choice of a kind, made through source
// by who: the channels in gives are changed, the others kept (all of them
// must be given when all is set). A change that changes nothing records
// nothing. It returns the choice in force after it.
func (s *ConsentService) Change(ctx context.Context, b Business, customerID, kind string, in ConsentInput, source, by string, all bool) (Consent, error) {
	var out Consent
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		cur, found, err := tx.LatestConsent(ctx, b.ID, customerID, kind)
		if err != nil {
			return notFoundField(err, "Customer not found.")
		}
		if !found {
			cur = Consent{BusinessID: b.ID, CustomerID: customerID, Kind: kind, ContactChannels: defaultChannels(kind)}
		}
		ch, err := in.apply(cur.ContactChannels, all)
		if err != nil {
			return err
		}
		if found && ch == cur.ContactChannels {
			out = cur
			dropAudit(s.Store) // nothing changed: nothing for the audit log either
			return nil
		}
		out = Consent{BusinessID: b.ID, CustomerID: customerID, Kind: kind, ContactChannels: ch, Source: source, By: by, CreatedAt: tx.Now()}
		return recordConsent(ctx, tx, &out)
	})
	return out, err
}

// Unsubscription is who an unsubscribe link names, and whether they
// still allow marketing on any channel.
type Unsubscription struct {
	Business   Business
	CustomerID string
	Subscribed bool
}

// Unsubscribed resolves an unsubscribe link's token (signed with key);
// ENotFound when it is not one this server made or names nobody.
func (s *ConsentService) Unsubscribed(ctx context.Context, key []byte, token string) (Unsubscription, error) {
	businessID, customerID, ok := ParseUnsubscribeToken(key, token)
	if !ok {
		return Unsubscription{}, Errorf(ENotFound, "This unsubscribe link is not valid.")
	}
	b, err := s.Store.Business(ctx, businessID)
	if err != nil {
		return Unsubscription{}, asNotFound(err, func() error { return Errorf(ENotFound, "This unsubscribe link is not valid.") })
	}
	st, err := s.State(ctx, b, customerID, ConsentMarketing)
	if err != nil {
		return Unsubscription{}, err
	}
	return Unsubscription{Business: b, CustomerID: customerID, Subscribed: st.Email || st.SMS || st.Push}, nil
}

// Unsubscribe withdraws the marketing consent of the customer an
// unsubscribe link names, on every channel: a choice the member made
// (source app), recorded in the history like any other.
func (s *ConsentService) Unsubscribe(ctx context.Context, key []byte, token string) (Unsubscription, error) {
	u, err := s.Unsubscribed(ctx, key, token)
	if err != nil || !u.Subscribed {
		return u, err
	}
	no := Some(false)
	clocked := &ConsentService{Store: ClockedStore(s.Store, u.Business.ClockOffset)}
	_, err = clocked.Change(ctx, u.Business, u.CustomerID, ConsentMarketing,
		ConsentInput{Email: no, SMS: no, Push: no}, ConsentFromApp, "unsubscribe link", true)
	u.Subscribed = err != nil
	return u, err
}
