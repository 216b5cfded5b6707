package loyalty

import (
	"context"
	"net/url"
	"strings"
)

// BranchInput is the body of POST /branches and PUT /branches/{id}. On
// update only the fields sent change, and an address merges member by
// member (null clears it).
type BranchInput struct {
	Name    Opt[string]             `json:"name"`
	WebSite Opt[string]             `json:"web_site"`
	Address Opt[BranchAddressInput] `json:"address"`
}

// BranchAddressInput is the address object of a branch body, in the
// reference platform's shape.
type BranchAddressInput struct {
	Formatted Opt[string]  `json:"formatted"`
	City      Opt[string]  `json:"city"`
	Region    Opt[string]  `json:"region"`
	Country   Opt[string]  `json:"country"`
	Lat       Opt[float64] `json:"lat"`
	Long      Opt[float64] `json:"long"`
}

// BranchListSpec says how GET /branches is paged: no filters; include
// (virtual_branch) is read by the handler.
var BranchListSpec = ListSpec{Reserved: []string{"include"}, DefaultPerPage: 100}

// BranchIncludes are what GET /branches can include: virtual_branch adds
// the business's virtual (e-commerce) branches, of which the service keeps
// none, so the list is the same.
var BranchIncludes = []string{"virtual_branch"}

// BranchService holds the rules for a business's branches.
type BranchService struct {
	Store Store
}

// Create adds a branch to the business.
func (s *BranchService) Create(ctx context.Context, b Business, in BranchInput) (Branch, error) {
	br := Branch{ID: NewID(), BusinessID: b.ID}
	if err := in.apply(&br, true); err != nil {
		return Branch{}, err
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error { return tx.InsertBranch(ctx, &br) })
	return br, err
}

// Update changes a branch of the business (the main one too).
func (s *BranchService) Update(ctx context.Context, b Business, id string, in BranchInput) (Branch, error) {
	id = strings.ToLower(id)
	if !ValidID(id) {
		return Branch{}, Errorf(EBadRequest, "Invalid branch id supplied.")
	}
	var out Branch
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		br, err := tx.Branch(ctx, b.ID, id)
		if err != nil {
			return err
		}
		if err := in.apply(&br, false); err != nil {
			return err
		}
		out = br
		return tx.UpdateBranch(ctx, &br)
	})
	return out, err
}

// apply validates in and merges it into br; a create needs a name.
func (in BranchInput) apply(br *Branch, creating bool) error {
	v := Validation{}
	if name, ok := in.Name.Value(); ok && strings.TrimSpace(name) != "" {
		if name = strings.TrimSpace(name); len(name) > 200 {
			v.Add("name", "The name may not be greater than 200 characters.")
		} else {
			br.Name = name
		}
	} else if creating || in.Name.Set {
		v.Add("name", "The name field is required.")
	}
	if in.WebSite.Set {
		site, _ := in.WebSite.Value()
		site = strings.TrimSpace(site)
		if u, err := url.Parse(site); site != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(site) > maxURL) {
			v.Add("web_site", "The web site must be an http or https URL of at most "+itoa(maxURL)+" characters.")
		} else {
			br.WebSite = site
		}
	}
	if a, ok := in.Address.Value(); ok {
		for _, f := range []struct {
			name string
			o    Opt[string]
			dst  *string
		}{
			{"formatted", a.Formatted, &br.Address.Formatted}, {"city", a.City, &br.Address.City},
			{"region", a.Region, &br.Address.Region}, {"country", a.Country, &br.Address.Country},
		} {
			setText(v, "address."+f.name, f.o, f.dst, 200)
		}
		setCoord(v, "address.lat", a.Lat, &br.Address.Lat, 90)
		setCoord(v, "address.long", a.Long, &br.Address.Long, 180)
	} else if in.Address.Null {
		br.Address = BranchAddress{}
	}
	return v.Err()
}

// List pages the branches of the business.
func (s *BranchService) List(ctx context.Context, b Business, q ListQuery) ([]Branch, int, error) {
	return s.Store.BranchPage(ctx, b.ID, q)
}

// All lists every branch of the business, the main one first.
func (s *BranchService) All(ctx context.Context, b Business) ([]Branch, error) {
	return s.Store.Branches(ctx, b.ID)
}

// Index reads the business's branches into the BranchIndex that finds the
// branch shown with each of its offers and gift cards.
func (s *BranchService) Index(ctx context.Context, b Business) (*BranchIndex, error) {
	all, err := s.All(ctx, b)
	if err != nil {
		return nil, err
	}
	return NewBranchIndex(all), nil
}

// BranchIndex finds the branch shown with an offer or gift card: the first
// of its branches that exists, or the business's main branch when it names
// none (it is available everywhere).
type BranchIndex struct {
	byID map[string]Branch
	main *Branch
}

// NewBranchIndex indexes a business's branches; the main one (else the
// first) stands for the whole business.
func NewBranchIndex(all []Branch) *BranchIndex {
	x := &BranchIndex{byID: make(map[string]Branch, len(all))}
	for i, b := range all {
		x.byID[b.ID] = b
		if b.IsMain && x.main == nil {
			x.main = &all[i]
		}
	}
	if x.main == nil && len(all) > 0 {
		x.main = &all[0]
	}
	return x
}

// For returns the branch shown with an object available at ids, and false
// when the business has no branch to show.
func (x *BranchIndex) For(ids []string) (Branch, bool) {
	for _, id := range ids {
		if b, ok := x.byID[id]; ok {
			return b, true
		}
	}
	if x.main == nil {
		return Branch{}, false
	}
	return *x.main, true
}
