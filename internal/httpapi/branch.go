package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// catalogRelationships are the relationships the catalog reads accept.
var catalogRelationships = []string{"branch"}

// relationships reads the relationships parameter of a catalog read,
// which takes no include.
func relationships(q url.Values) (map[string]bool, error) {
	if _, err := loyalty.QueryNames(q, "include", nil); err != nil {
		return nil, err
	}
	return loyalty.QueryNames(q, "relationships", catalogRelationships)
}

// branchPicker finds the branch object of an offer or gift card (see
// loyalty.BranchIndex); a nil picker adds no branch.
type branchPicker struct {
	idx *loyalty.BranchIndex
}

// branchPicker reads the business's branches when the branch relationship
// was asked for.
func (s *Server) branchPicker(ctx context.Context, businessID string, rel map[string]bool) (*branchPicker, error) {
	if !rel["branch"] {
		return nil, nil
	}
	idx, err := s.Services.Branches.Index(ctx, loyalty.Business{ID: businessID})
	if err != nil {
		return nil, err
	}
	return &branchPicker{idx: idx}, nil
}

// of returns the branch object for an object available at ids.
func (p *branchPicker) of(ids []string) *branchJSON {
	if p == nil {
		return nil
	}
	b, ok := p.idx.For(ids)
	if !ok {
		return nil
	}
	j := toBranchJSON(b)
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

func (s *Server) listBranches(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	// virtual_branch changes nothing: the service keeps no virtual branch.
	if _, _, err := queryNames(r, loyalty.BranchIncludes, nil); err != nil {
		return err
	}
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.BranchListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Branches.List(r.Context(), tenant(rc), lq)
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

func (s *Server) createBranch(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.BranchInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	b, err := auditedOf(s, r, rc, loyalty.AuditProgramCreated, named("Branch", in.Name, ""), func(svc loyalty.Services) (loyalty.Branch, error) {
		return svc.Branches.Create(r.Context(), tenant(rc), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toBranchJSON(b)})
	return nil
}

func (s *Server) updateBranch(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.BranchInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	b, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, namedOrRead("Branch", in.Name, r.PathValue("id"), func() (string, error) {
		all, err := rc.svc.Branches.All(r.Context(), tenant(rc))
		for _, b := range all {
			if b.ID == r.PathValue("id") {
				return b.Name, err
			}
		}
		return "", err
	}), func(svc loyalty.Services) (loyalty.Branch, error) {
		return svc.Branches.Update(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toBranchJSON(b)})
	return nil
}
