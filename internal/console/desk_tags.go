package console

import (
	"context"
	"slices"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// A customer's tags in the console: shown to every role on the
// customer's page, changed by the owner and managers (segments select by
// them, and segments are theirs).

// CustomerTags are a customer's tags and the business's, to pick from.
type CustomerTags struct {
	Tags  []string // the customer's, sorted
	Known []string // every tag the business's customers carry, sorted
}

// Tags reads a customer's tags and the business's.
func (d *CustomerDesk) Tags(ctx context.Context, a loyalty.Actor, customerID string) (CustomerTags, error) {
	b, c, err := d.forCounter(ctx, a, customerID)
	if err != nil {
		return CustomerTags{}, err
	}
	svc := d.on(b)
	var out CustomerTags
	if out.Tags, err = svc.Customers.Tags(ctx, b, c.ID); err != nil {
		return out, err
	}
	out.Known, err = svc.Customers.BusinessTags(ctx, b)
	return out, err
}

// SetTags replaces a customer's tags (the domain trims, lower-cases and
// bounds them), audited as a change of the customer with the tags
// before and after; tags that change nothing record nothing.
func (d *CustomerDesk) SetTags(ctx context.Context, a loyalty.Actor, customerID string, tags []string) ([]string, error) {
	b, c, err := d.forManager(ctx, a, customerID)
	if err != nil {
		return nil, err
	}
	svc := d.on(b)
	cur, err := svc.Customers.Tags(ctx, b, c.ID)
	if err != nil {
		return nil, err
	}
	if tags == nil {
		tags = []string{}
	}
	after := loyalty.NormalTags(tags)
	if len(after) == len(tags) && slices.Equal(cur, after) {
		return cur, nil
	}
	var out []string
	err = loyalty.Audited(a, loyalty.AuditCustomerUpdated, customerName(c),
		map[string]string{"tags": strings.Join(cur, ", ")}, map[string]string{"tags": strings.Join(after, ", ")},
		func(r *loyalty.AuditRecord) error {
			var err error
			out, err = svc.AuditedBy(r).Customers.SetTags(ctx, b, c.ID, loyalty.TagsInput{Tags: loyalty.Some(tags)})
			return err
		})
	return out, err
}

// Has reports whether the customer has tag.
func (t CustomerTags) Has(tag string) bool { return slices.Contains(t.Tags, tag) }
