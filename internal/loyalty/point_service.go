package loyalty

import "context"

// LotListSpec says how GET /customers/{id}/points is filtered.
var LotListSpec = listSpecOf(map[string]FilterKind{"state": KindString, "expires_at": KindTime, "activates_at": KindTime}, 15)

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

// PointsPreferences are what a person chose about the messages of points.
type PointsPreferences struct {
	ExpiryNotices bool // told before points expire
}

// PreferencesInput is the body of PATCH /users/{id}/preferences.
type PreferencesInput struct {
	ExpiryNotices Opt[bool] `json:"points_expiry_notices"`
}

// Preferences reads a person's preferences with the businesses of p.
func (s *PointsService) Preferences(ctx context.Context, p Program, userID string) (PointsPreferences, error) {
	on, err := s.Store.ExpiryNotices(ctx, userID, p.BusinessIDs())
	return PointsPreferences{ExpiryNotices: on}, err
}

// SetPreferences changes a person's preferences with the businesses of p.
func (s *PointsService) SetPreferences(ctx context.Context, p Program, userID string, in PreferencesInput) (PointsPreferences, error) {
	if on, ok := in.ExpiryNotices.Value(); ok {
		if err := s.Store.SetExpiryNotices(ctx, userID, p.BusinessIDs(), on); err != nil {
			return PointsPreferences{}, err
		}
	} else if in.ExpiryNotices.Null {
		return PointsPreferences{}, Invalid("points_expiry_notices", "The points_expiry_notices field must be true or false.")
	}
	return s.Preferences(ctx, p, userID)
}
