package httpapi

import (
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// offerDetailJSON is an offer as the business manages it: the offer of
// spec 2.5 with its schedule, audience and state.
type offerDetailJSON struct {
	offerJSON
	StartsAt    string   `json:"starts_at"`
	Enabled     bool     `json:"enabled"`
	Targeted    bool     `json:"targeted"`
	Convertible bool     `json:"convertible"`
	Branches    []string `json:"branches"`
	Customers   []string `json:"customers"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
}

func toOfferDetailJSON(o loyalty.Offer, p *branchPicker) offerDetailJSON {
	out := offerDetailJSON{offerJSON: toOfferJSON(o), StartsAt: loyalty.FormatTime(o.StartsAt), Enabled: o.Enabled,
		Targeted: o.Targeted, Convertible: o.CouponKind == loyalty.CouponConvertible, Branches: idsOrEmpty(o.BranchIDs),
		Customers: idsOrEmpty(o.TargetIDs), CreatedAt: loyalty.FormatTime(o.CreatedAt), UpdatedAt: loyalty.FormatTime(o.UpdatedAt)}
	out.Branch = p.of(o.BranchIDs)
	return out
}

// customerOfferJSON is an offer as one customer sees it (spec 4.2).
type customerOfferJSON struct {
	offerJSON
	CouponTypeID *int         `json:"coupon_type_id"`
	Actions      []actionJSON `json:"actions"`
}

func (c *catalog) listOffers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	rel, err := relationships(q)
	if err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.OfferListSpec)
	if err != nil {
		return err
	}
	list, total, err := c.offers.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	p, err := c.branchPicker(r.Context(), rc.businessID, rel)
	if err != nil {
		return err
	}
	data := make([]offerDetailJSON, len(list))
	for i, o := range list {
		data[i] = toOfferDetailJSON(o, p)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"cursor": cursorOf("offers", q, lq, len(list), total),
		"meta":   map[string]int{"total": total},
	})
	return nil
}

func (c *catalog) getOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	o, err := c.offers.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	return c.writeOffer(w, r, rc, o, rel)
}

// writeOffer answers with one offer.
func (c *catalog) writeOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx, o loyalty.Offer, rel map[string]bool) error {
	p, err := c.branchPicker(r.Context(), rc.businessID, rel)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toOfferDetailJSON(o, p)})
	return nil
}

func (c *catalog) createOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	var in loyalty.OfferInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	o, err := c.offers.Create(r.Context(), tenant(rc), in)
	if err != nil {
		return err
	}
	return c.writeOffer(w, r, rc, o, rel)
}

func (c *catalog) updateOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	var in loyalty.OfferInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	o, err := c.offers.Update(r.Context(), tenant(rc), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return c.writeOffer(w, r, rc, o, rel)
}

func (c *catalog) deleteOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := c.offers.Delete(r.Context(), tenant(rc), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (c *catalog) customerOffers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	rel, err := relationships(q)
	if err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.CustomerOfferSpec)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	list, total, err := c.offers.CustomerOffers(r.Context(), tenant(rc), id, lq)
	if err != nil {
		return err
	}
	p, err := c.branchPicker(r.Context(), rc.businessID, rel)
	if err != nil {
		return err
	}
	data := make([]customerOfferJSON, len(list))
	for i, co := range list {
		data[i] = customerOfferJSON{offerJSON: toOfferJSON(co.Offer), Actions: []actionJSON{}}
		data[i].Branch = p.of(co.BranchIDs)
		if co.CouponTypeID != 0 {
			state := co.CouponTypeID
			data[i].CouponTypeID = &state
		}
		for _, a := range co.Actions {
			data[i].Actions = append(data[i].Actions, actionJSON{Type: a})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data,
		"links": pageLinks("customers/"+strings.ToLower(id)+"/offers", q, lq, total), "meta": pageMeta(lq, len(list), total)})
	return nil
}

func (c *catalog) availableCoupons(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.CustomerCouponSpec)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	list, total, err := c.offers.AvailableCoupons(r.Context(), tenant(rc), id, lq)
	if err != nil {
		return err
	}
	data := make([]*couponJSON, len(list))
	for i, cp := range list {
		data[i] = toCouponJSON(cp)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data,
		"links": pageLinks("customers/"+strings.ToLower(id)+"/available-coupons", q, lq, total), "meta": pageMeta(lq, len(list), total)})
	return nil
}
