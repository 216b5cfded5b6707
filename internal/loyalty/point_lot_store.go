package loyalty

import "context"

// LotReader reads the lots of points.
type LotReader interface {
	// CustomerLots pages the lots of an active customer, newest first, or ENotFound.
	CustomerLots(ctx context.Context, businessID, customerID string, q ListQuery) ([]PointLot, int, error)
}
