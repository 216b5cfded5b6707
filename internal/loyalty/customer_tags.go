package loyalty

import (
	"context"
	"strconv"
)

// A customer's tags are short labels a business gives its customers
// ("vip", "staff", "wholesale") for segments to select by; stored
// trimmed and lower-cased, each once.

// maxCustomerTags bounds the tags of one customer.
const maxCustomerTags = 50

// TagsInput is the body of PUT /customers/{id}/tags.
type TagsInput struct {
	Tags Opt[[]string] `json:"tags"`
}

// CustomerTagReader reads customers' tags.
type CustomerTagReader interface {
	// CustomerTags returns a customer's tags, sorted.
	CustomerTags(ctx context.Context, businessID, customerID string) ([]string, error)
}

// CustomerTagTx changes customers' tags.
type CustomerTagTx interface {
	// SetCustomerTags replaces a customer's tags.
	SetCustomerTags(ctx context.Context, businessID, customerID string, tags []string) error
}

// Tags returns a customer's tags.
func (s *CustomerService) Tags(ctx context.Context, b Business, id string) ([]string, error) {
	c, err := s.Get(ctx, b, id)
	if err != nil {
		return nil, err
	}
	return s.Store.CustomerTags(ctx, b.ID, c.ID)
}

// SetTags replaces a customer's tags.
func (s *CustomerService) SetTags(ctx context.Context, b Business, id string, in TagsInput) ([]string, error) {
	c, err := s.Get(ctx, b, id)
	if err != nil {
		return nil, err
	}
	raw, ok := in.Tags.Value()
	switch {
	case !ok:
		return nil, Invalid("tags", "The tags field is required: a list of tags, [] for none.")
	case len(raw) > maxCustomerTags:
		return nil, Invalid("tags", "A customer may have at most "+strconv.Itoa(maxCustomerTags)+" tags.")
	}
	for _, t := range raw {
		if _, ok := normalTag(t); !ok {
			return nil, Invalid("tags", "Each tag must be 1 to "+strconv.Itoa(maxSegmentTagLen)+" characters.")
		}
	}
	tags := normalTags(raw)
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		return tx.SetCustomerTags(ctx, b.ID, c.ID, tags)
	})
	return tags, err
}
