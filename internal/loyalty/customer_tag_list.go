package loyalty

import "context"

// The tags a business uses, for the pickers that choose among them (a
// segment's "Tagged" condition): what its customers carry now.

// MaxTagChoices bounds the tags a picker offers.
const MaxTagChoices = 200

// BusinessTagReader lists the tags of a business's customers.
type BusinessTagReader interface {
	// BusinessTags returns the distinct tags of the business's customers,
	// sorted, at most limit of them.
	BusinessTags(ctx context.Context, businessID string, limit int) ([]string, error)
}

// BusinessTags returns the tags the business's customers carry, sorted,
// at most MaxTagChoices.
func (s *CustomerService) BusinessTags(ctx context.Context, b Business) ([]string, error) {
	return s.Store.BusinessTags(ctx, b.ID, MaxTagChoices)
}

// NormalTags are tags as SetTags stores them (trimmed, lower-cased, each
// once, sorted), those it would refuse left out: what a change of a
// customer's tags will leave, for its audit entry.
func NormalTags(in []string) []string { return normalTags(in) }
