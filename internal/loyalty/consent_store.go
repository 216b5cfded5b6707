package loyalty

import "context"

// ConsentReader reads the choices customers made.
type ConsentReader interface {
	// Consents returns a customer's records of a kind, newest first.
	Consents(ctx context.Context, businessID, customerID, kind string) ([]Consent, error)
}

// ConsentTx is the part of a transaction that records choices.
type ConsentTx interface {
	// LatestConsent locks the customer's row of the business (ENotFound
	// when there is none) and returns its newest record of the kind,
	// found false when it has none. Holding the row, no concurrent change
	// of the same choice records over this one.
	LatestConsent(ctx context.Context, businessID, customerID, kind string) (c Consent, found bool, err error)
	// InsertConsent appends a record.
	InsertConsent(ctx context.Context, c *Consent) error
	// SetMarketingConsent keeps the marketing channels in force on the
	// customer's row, for segments to select by.
	SetMarketingConsent(ctx context.Context, businessID, customerID string, ch ContactChannels) error
	// CurrentConsent returns the customer's newest record of the kind,
	// found false when it has none; it locks nothing.
	CurrentConsent(ctx context.Context, businessID, customerID, kind string) (c Consent, found bool, err error)
}

// recordConsent appends a choice; a marketing choice is the one in force
// from now, kept on the customer's row too.
func recordConsent(ctx context.Context, tx Tx, c *Consent) error {
	if err := tx.InsertConsent(ctx, c); err != nil {
		return err
	}
	if c.Kind != ConsentMarketing {
		return nil
	}
	return tx.SetMarketingConsent(ctx, c.BusinessID, c.CustomerID, c.ContactChannels)
}
