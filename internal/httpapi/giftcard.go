package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// giftcardJSON is a gift card (spec 2.10) with what the business manages
// of it: where it is sold and whether it is on sale.
type giftcardJSON struct {
	ID            int64           `json:"id"`
	Type          string          `json:"type"`
	Title         string          `json:"title"`
	Description   string          `json:"description"`
	Points        int64           `json:"points"`
	DiscountValue loyalty.Money   `json:"discount_value"`
	RealValue     loyalty.Money   `json:"real_value"`
	MultipFactor  loyalty.Money   `json:"multip_factor"`
	ExpiresAt     *string         `json:"expires_at"`
	Images        []loyalty.Image `json:"images"`
	Enabled       bool            `json:"enabled"`
	Branches      []string        `json:"branches"`
	CreatedAt     string          `json:"created_at"`
	UpdatedAt     string          `json:"updated_at"`
	Branch        *branchJSON     `json:"branch,omitempty"`
}

func toGiftcardJSON(g loyalty.Giftcard, p *branchPicker) giftcardJSON {
	return giftcardJSON{ID: g.ID, Type: "giftcard", Title: g.Title, Description: g.Description, Points: g.Points,
		DiscountValue: g.DiscountValue, RealValue: g.RealValue, MultipFactor: g.MultipFactor,
		ExpiresAt: loyalty.OptTime(g.ExpiresAt), Images: imagesOrEmpty(g.Images),
		Enabled: g.Enabled, Branches: idsOrEmpty(g.BranchIDs), CreatedAt: loyalty.FormatTime(g.CreatedAt),
		UpdatedAt: loyalty.FormatTime(g.UpdatedAt), Branch: p.of(g.BranchIDs)}
}

func (s *Server) listGiftcards(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	rel, err := relationships(q)
	if err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.GiftcardListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Giftcards.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	p, err := s.branchPicker(r.Context(), rc.businessID, rel)
	if err != nil {
		return err
	}
	data := make([]giftcardJSON, len(list))
	for i, g := range list {
		data[i] = toGiftcardJSON(g, p)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"cursor": cursorOf("giftcards", q, lq, len(list), total),
		"meta":   map[string]int{"total": total},
	})
	return nil
}

// writeGiftcard answers with one gift card.
func (s *Server) writeGiftcard(w http.ResponseWriter, r *http.Request, rc *reqCtx, g loyalty.Giftcard, rel map[string]bool) error {
	p, err := s.branchPicker(r.Context(), rc.businessID, rel)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toGiftcardJSON(g, p)})
	return nil
}

func (s *Server) getGiftcard(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	g, err := rc.svc.Giftcards.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.writeGiftcard(w, r, rc, g, rel)
}

func (s *Server) createGiftcard(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	var in loyalty.GiftcardInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	g, err := auditedOf(s, r, rc, loyalty.AuditProgramCreated, named("Gift card", in.Title, ""), func(svc loyalty.Services) (loyalty.Giftcard, error) {
		return svc.Giftcards.Create(r.Context(), tenant(rc), in)
	})
	if err != nil {
		return err
	}
	return s.writeGiftcard(w, r, rc, g, rel)
}

func (s *Server) updateGiftcard(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	var in loyalty.GiftcardInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	g, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, namedOrRead("Gift card", in.Title, r.PathValue("id"), func() (string, error) {
		g, err := rc.svc.Giftcards.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return g.Title, err
	}), func(svc loyalty.Services) (loyalty.Giftcard, error) {
		return svc.Giftcards.Update(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	return s.writeGiftcard(w, r, rc, g, rel)
}

func (s *Server) deleteGiftcard(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Gift card", nameOf(func() (string, error) {
		g, err := rc.svc.Giftcards.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return g.Title, err
	}), r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.Giftcards.Delete(r.Context(), tenant(rc), r.PathValue("id"))
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
