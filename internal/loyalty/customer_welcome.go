package loyalty

import "context"

// welcome queues the welcome message of a person a business has just
// created: a token to confirm each contact, and the way to a PIN (a PIN
// reset), since the business set none.
func (s *CustomerService) welcome(ctx context.Context, tx Tx, b Business, u User) error {
	if s.Hash == nil {
		return nil
	}
	for _, c := range []struct{ kind, to string }{{ContactEmail, u.Email}, {ContactPhone, u.Phone}} {
		if c.to == "" {
			continue
		}
		token, err := newSecret(ctx, tx, s.Hash, u.ID, SecretVerify, c.to, VerifyTTL)
		if err != nil {
			return err
		}
		m := customerWelcomeMessage(b.Name, c.kind, c.to, u.FirstName, token)
		if err := tx.EnqueueMessage(ctx, &m); err != nil {
			return err
		}
	}
	return nil
}

// Welcome queues the welcome message of a customer of the business
// again, with new tokens to confirm each contact, in a change of its own.
func (s *CustomerService) Welcome(ctx context.Context, b Business, u User) error {
	err := s.Store.WithTx(ctx, func(tx Tx) error { return s.welcome(ctx, tx, b, u) })
	if err == nil {
		s.notify()
	}
	return err
}
