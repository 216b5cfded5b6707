package loyalty

import (
	"context"
	"net/url"
	"strings"
)

// BranchInput is the body of POST /branches.
type BranchInput struct {
	Name    Opt[string] `json:"name"`
	WebSite Opt[string] `json:"web_site"`
}

// BranchListSpec says how GET /branches is paged: no filters.
var BranchListSpec = ListSpec{DefaultPerPage: 100}

// BranchService holds the rules for a business's branches.
type BranchService struct {
	Store Store
}

// Create adds a branch to the business.
func (s *BranchService) Create(ctx context.Context, b Business, in BranchInput) (Branch, error) {
	v := Validation{}
	br := Branch{ID: NewID(), BusinessID: b.ID}
	if name, ok := in.Name.Value(); !ok || strings.TrimSpace(name) == "" {
		v.Add("name", "The name field is required.")
	} else if name = strings.TrimSpace(name); len(name) > 200 {
		v.Add("name", "The name may not be greater than 200 characters.")
	} else {
		br.Name = name
	}
	if site, ok := in.WebSite.Value(); ok && strings.TrimSpace(site) != "" {
		site = strings.TrimSpace(site)
		if u, err := url.Parse(site); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(site) > maxURL {
			v.Add("web_site", "The web site must be an http or https URL of at most "+itoa(maxURL)+" characters.")
		} else {
			br.WebSite = site
		}
	}
	if err := v.Err(); err != nil {
		return Branch{}, err
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error { return tx.InsertBranch(ctx, &br) })
	return br, err
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
