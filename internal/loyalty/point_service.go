package loyalty

import "context"

// LotListSpec says how GET /customers/{id}/points is filtered.
var LotListSpec = listSpecOf(map[string]FilterKind{"state": KindString, "expires_at": KindTime, "activates_at": KindTime}, 15)

// LotReader reads the lots of points.
type LotReader interface {
	// CustomerLots pages the lots of an active customer, newest first, or ENotFound.
	CustomerLots(ctx context.Context, businessID, customerID string, q ListQuery) ([]PointLot, int, error)
}

// PointsService shows the life of a customer's points and moves a sandbox
// business's clock.
type PointsService struct {
	Store Store
}

// Lots pages a customer's lots: what each earning gave, what remains,
// when it activates and when it expires.
func (s *PointsService) Lots(ctx context.Context, b Business, customerID string, q ListQuery) ([]PointLot, int, error) {
	id, err := customerIDOf(customerID)
	if err != nil {
		return nil, 0, err
	}
	lots, total, err := s.Store.CustomerLots(ctx, b.ID, id, q)
	return lots, total, asNotFound(err, customerNotFound)
}
