package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// catalogRelationships are the relationships the catalog reads accept.
var catalogRelationships = []string{"branch"}

// relationships reads the relationships parameter of a catalog read.
func relationships(q url.Values) (map[string]bool, error) {
	return loyalty.ParseNames("relationships", q.Get("relationships"), catalogRelationships)
}

// branchPicker finds the branch object of an offer or gift card: its first
// branch, or the business's main branch when it is available everywhere.
type branchPicker struct {
	byID map[string]loyalty.Branch
	main *loyalty.Branch
}

// branchPicker reads the business's branches when the branch relationship
// was asked for; a nil picker adds no branch.
func (c *catalog) branchPicker(ctx context.Context, businessID string, rel map[string]bool) (*branchPicker, error) {
	if !rel["branch"] {
		return nil, nil
	}
	all, err := c.s.Store.Branches(ctx, businessID)
	if err != nil {
		return nil, err
	}
	p := &branchPicker{byID: make(map[string]loyalty.Branch, len(all))}
	for i, b := range all {
		p.byID[b.ID] = b
		if b.IsMain && p.main == nil {
			p.main = &all[i]
		}
	}
	if p.main == nil && len(all) > 0 {
		p.main = &all[0]
	}
	return p, nil
}

// of returns the branch object for an object available at ids.
func (p *branchPicker) of(ids []string) *branchJSON {
	if p == nil {
		return nil
	}
	for _, id := range ids {
		if b, ok := p.byID[id]; ok {
			j := toBranchJSON(b)
			return &j
		}
	}
	if p.main == nil {
		return nil
	}
	j := toBranchJSON(*p.main)
	return &j
}

// idsOrEmpty writes a nil list of ids as [].
func idsOrEmpty(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// imagesOrEmpty writes a nil list of images as [].
func imagesOrEmpty(images []loyalty.Image) []loyalty.Image {
	if images == nil {
		return []loyalty.Image{}
	}
	return images
}

// tenant is the business of a request, as the catalog services need it.
func tenant(rc *reqCtx) loyalty.Business { return loyalty.Business{ID: rc.businessID} }

func (c *catalog) listBranches(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.BranchListSpec)
	if err != nil {
		return err
	}
	list, total, err := c.branches.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]branchJSON, len(list))
	for i, b := range list {
		data[i] = toBranchJSON(b)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"cursor": cursorOf("branches", q, lq, len(list), total),
		"meta":   map[string]int{"total": total},
	})
	return nil
}

func (c *catalog) createBranch(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.BranchInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	b, err := c.branches.Create(r.Context(), tenant(rc), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toBranchJSON(b)})
	return nil
}
