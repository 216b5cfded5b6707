package loyalty

import (
	"context"
	"slices"
	"strings"
)

// RewardKinds are the kinds of reward a business may offer.
var RewardKinds = []string{CatalogItem, CustomReward}

// RewardListSpec says how GET /rewards is paged and filtered.
var RewardListSpec = ListSpec{
	Fields:         map[string]FilterKind{"kind": KindString, "created_at": KindTime, "updated_at": KindTime},
	DefaultPerPage: 100,
}

// RewardService holds the rules for a business's catalog items and custom
// rewards.
type RewardService struct {
	Store Store
}

// Create adds a catalog item or a custom reward.
func (s *RewardService) Create(ctx context.Context, b Business, in RewardInput) (Reward, error) {
	r := Reward{BusinessID: b.ID, Enabled: true, Images: []Image{}}
	v := Validation{}
	if !in.Kind.Set && !in.Type.Set && !in.TypeID.Set {
		v.Add("kind", "The kind field is required; one of "+strings.Join(RewardKinds, ", ")+" (or a type_id, for a catalog item).")
	}
	if !in.Points.Set {
		v.Add("points", "The points field is required.")
	}
	levels, err := s.tierLevels(ctx, b, &in)
	if err != nil {
		return Reward{}, err
	}
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		now := tx.Now()
		r.CreatedAt, r.UpdatedAt = now, now
		if err := in.apply(ctx, tx, v, b, levels, &r, true); err != nil {
			return err
		}
		return tx.InsertReward(ctx, &r)
	})
	return r, err
}

// tierLevels returns the ids of the business's tier levels when the body
// names some.
func (s *RewardService) tierLevels(ctx context.Context, b Business, in *RewardInput) (map[int64]bool, error) {
	if len(in.RedemptionUserTiers.V) == 0 {
		return nil, nil
	}
	tiers, err := s.Store.Tiers(ctx, b.ID)
	if err != nil {
		return nil, err
	}
	out := map[int64]bool{}
	for _, t := range tiers {
		for _, l := range t.Levels {
			out[l.ID] = true
		}
	}
	return out, nil
}

// Update changes the fields sent.
func (s *RewardService) Update(ctx context.Context, b Business, id string, in RewardInput) (Reward, error) {
	rid, err := intID("reward", id)
	if err != nil {
		return Reward{}, err
	}
	levels, err := s.tierLevels(ctx, b, &in)
	if err != nil {
		return Reward{}, err
	}
	var out Reward
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		r, err := liveReward(ctx, tx, b.ID, rid)
		if err != nil {
			return err
		}
		if err := in.apply(ctx, tx, Validation{}, b, levels, &r, false); err != nil {
			return err
		}
		r.UpdatedAt = tx.Now()
		out = r
		return tx.UpdateReward(ctx, &r)
	})
	return out, err
}

// Delete removes a reward from every list; past redemptions keep naming it.
func (s *RewardService) Delete(ctx context.Context, b Business, id string) error {
	rid, err := intID("reward", id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		r, err := liveReward(ctx, tx, b.ID, rid)
		if err != nil {
			return err
		}
		r.Deleted, r.UpdatedAt = true, tx.Now()
		return tx.UpdateReward(ctx, &r)
	})
}

// Get returns one reward of the business.
func (s *RewardService) Get(ctx context.Context, b Business, id string) (Reward, error) {
	rid, err := intID("reward", id)
	if err != nil {
		return Reward{}, err
	}
	return s.Store.Reward(ctx, b.ID, rid)
}

// List pages the rewards of the business; the kind filter takes eq, in and
// not_in with catalog_item and custom_reward.
func (s *RewardService) List(ctx context.Context, b Business, q ListQuery) ([]Reward, int, error) {
	for _, f := range q.Filters {
		if f.Field != "kind" {
			continue
		}
		if f.Op != OpEq && f.Op != OpIn && f.Op != OpNotIn {
			return nil, 0, Errorf(EBadRequest, "The filter kind takes the operators eq, in and not_in.")
		}
		for _, val := range f.Values {
			if k, _ := val.(string); !slices.Contains(RewardKinds, k) {
				return nil, 0, Errorf(EBadRequest, "The filter kind takes the values %s.", strings.Join(RewardKinds, ", "))
			}
		}
	}
	return s.Store.Rewards(ctx, b.ID, q)
}

// liveReward reads a reward that is not deleted inside tx.
func liveReward(ctx context.Context, tx Tx, businessID string, id int64) (Reward, error) {
	r, err := tx.Reward(ctx, businessID, id)
	if err == nil && r.Deleted {
		err = Errorf(ENotFound, "Reward not found.")
	}
	return r, err
}

// CustomerRewardSpec says how GET /customers/{id}/rewards is paged and
// filtered: branch.id takes eq and in.
var CustomerRewardSpec = ListSpec{Fields: map[string]FilterKind{"branch.id": KindString}, DefaultPerPage: 15}

// CustomerRewards pages the catalog items one customer may redeem now,
// oldest first: enabled, published and not expired, open to the customer
// (targeted_flag and its customers or tier levels) and, with a branch.id
// filter, available at one of those branches.
func (s *RewardService) CustomerRewards(ctx context.Context, b Business, customerID string, q ListQuery) ([]Reward, int, error) {
	var branches []string
	for _, f := range q.Filters {
		if f.Op != OpEq && f.Op != OpIn {
			return nil, 0, Errorf(EBadRequest, "The filter branch.id takes the operators eq and in.")
		}
		for _, v := range f.Values {
			s, _ := v.(string)
			branches = append(branches, strings.ToLower(s))
		}
	}
	id, err := customerIDOf(customerID)
	if err != nil {
		return nil, 0, err
	}
	if _, err := s.Store.Customer(ctx, b.ID, id); err != nil {
		return nil, 0, asNotFound(err, customerNotFound)
	}
	all, err := allPages(func(q ListQuery) ([]Reward, int, error) { return s.Store.Rewards(ctx, b.ID, q) })
	if err != nil {
		return nil, 0, err
	}
	now := s.Store.Now()
	var level *int64
	var open []Reward
	for _, r := range all {
		if r.Audience == AudienceTiers && level == nil {
			l, err := customerLevel(ctx, s.Store, b.ID, id)
			if err != nil {
				return nil, 0, err
			}
			level = &l
		}
		l := int64(0)
		if level != nil {
			l = *level
		}
		if r.Kind != CatalogItem || !r.Available(now) || !r.OpenTo(id, l) ||
			(len(branches) > 0 && !slices.ContainsFunc(branches, r.AvailableAt)) {
			continue
		}
		open = append(open, r)
	}
	from := min(q.Offset(), len(open))
	return open[from:min(from+q.PerPage, len(open))], len(open), nil
}
