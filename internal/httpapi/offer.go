package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// offerTermsJSON is what an offer holds beyond spec 2.5: when it is
// published, the purchase range and frequency (with the weekdays and hours
// of a day-and-time offer) it applies with, and its
// texts per language (the reference platform's offer_languages).
type offerTermsJSON struct {
	PublishAt        string              `json:"publish_at"`
	MinPurchase      loyalty.Money       `json:"min_purchase"`
	MaxPurchase      *loyalty.Money      `json:"max_purchase"`
	OfferFrequencyID *int                `json:"offer_frequency_id"`
	FreqDetails      []string            `json:"freq_details"`
	PeakFrom         *string             `json:"peak_from"`
	PeakTo           *string             `json:"peak_to"`
	CouponExpiresIn  int64               `json:"coupon_expires_in"`
	ExternalID       string              `json:"external_id"`
	OfferLanguages   []offerLanguageJSON `json:"offer_languages"`
}

// offerLanguageJSON is one entry of offer_languages.
type offerLanguageJSON struct {
	LanguageID      int    `json:"language_id"`
	OfferTitle      string `json:"offer_title"`
	Description     string `json:"offer_description"`
	TermsConditions string `json:"offer_terms_conditions"`
	Link            string `json:"offer_link"`
	Product         string `json:"offer_product"`
}

func toOfferTermsJSON(o loyalty.Offer) offerTermsJSON {
	out := offerTermsJSON{PublishAt: loyalty.FormatTime(o.StartsAt), MinPurchase: o.MinPurchase, CouponExpiresIn: o.CouponExpiresIn,
		ExternalID: o.ExternalID, OfferLanguages: []offerLanguageJSON{}}
	if o.MaxPurchase > 0 {
		m := o.MaxPurchase
		out.MaxPurchase = &m
	}
	if o.Frequency != 0 {
		f := o.Frequency
		out.OfferFrequencyID = &f
	}
	if o.Frequency == loyalty.OfferDayTime {
		for _, d := range o.Days {
			out.FreqDetails = append(out.FreqDetails, strconv.Itoa(d))
		}
		out.PeakFrom, out.PeakTo = &o.PeakFrom, &o.PeakTo
	}
	for _, t := range loyalty.TextsOf(o.Title, o.Description, o.Texts) {
		out.OfferLanguages = append(out.OfferLanguages, offerLanguageJSON{LanguageID: t.LanguageID, OfferTitle: t.Title,
			Description: t.Description, TermsConditions: t.TermsConditions, Link: t.Link, Product: t.Product})
	}
	return out
}

// offerDetailJSON is an offer as the business manages it: the offer of
// spec 2.5 with its schedule, audience, terms and state.
type offerDetailJSON struct {
	loyalty.OfferJSON
	Branch *branchJSON `json:"branch,omitempty"`
	offerTermsJSON
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
	out := offerDetailJSON{OfferJSON: loyalty.NewOfferJSON(o), offerTermsJSON: toOfferTermsJSON(o), StartsAt: loyalty.FormatTime(o.StartsAt),
		Enabled: o.Enabled, Targeted: o.Targeted, Convertible: o.CouponKind == loyalty.CouponConvertible,
		Branches: idsOrEmpty(o.BranchIDs), Customers: idsOrEmpty(o.TargetIDs), CreatedAt: loyalty.FormatTime(o.CreatedAt),
		UpdatedAt: loyalty.FormatTime(o.UpdatedAt)}
	out.Branch = p.of(o.BranchIDs)
	return out
}

// customerOfferJSON is an offer as one customer sees it (spec 4.2).
type customerOfferJSON struct {
	loyalty.OfferJSON
	Branch *branchJSON `json:"branch,omitempty"`
	offerTermsJSON
	CouponTypeID *int         `json:"coupon_type_id"`
	Actions      []actionJSON `json:"actions"`
}

// toCustomerOfferJSON is an offer as one customer sees it, with the branch
// p picks for it.
func toCustomerOfferJSON(co loyalty.CustomerOffer, p *branchPicker) customerOfferJSON {
	out := customerOfferJSON{OfferJSON: loyalty.NewOfferJSON(co.Offer), offerTermsJSON: toOfferTermsJSON(co.Offer), Actions: []actionJSON{}}
	out.Branch = p.of(co.BranchIDs)
	if co.CouponTypeID != 0 {
		state := co.CouponTypeID
		out.CouponTypeID = &state
	}
	for _, a := range co.Actions {
		out.Actions = append(out.Actions, actionJSON{Type: a})
	}
	return out
}

func (s *Server) listOffers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	rel, err := relationships(q)
	if err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.OfferListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Offers.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	p, err := s.branchPicker(r.Context(), rc.businessID, rel)
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

func (s *Server) getOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	o, err := rc.svc.Offers.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.writeOffer(w, r, rc, o, rel)
}

// writeOffer answers with one offer.
func (s *Server) writeOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx, o loyalty.Offer, rel map[string]bool) error {
	p, err := s.branchPicker(r.Context(), rc.businessID, rel)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toOfferDetailJSON(o, p)})
	return nil
}

func (s *Server) createOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	var in loyalty.OfferInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	o, err := auditedOf(s, r, rc, loyalty.AuditProgramCreated, named("Offer", in.Title, ""), func(svc loyalty.Services) (loyalty.Offer, error) {
		return svc.Offers.Create(r.Context(), tenant(rc), in)
	})
	if err != nil {
		return err
	}
	return s.writeOffer(w, r, rc, o, rel)
}

func (s *Server) updateOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	var in loyalty.OfferInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	o, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, namedOrRead("Offer", in.Title, r.PathValue("id"), func() (string, error) {
		o, err := rc.svc.Offers.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return o.Title, err
	}), func(svc loyalty.Services) (loyalty.Offer, error) {
		return svc.Offers.Update(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	return s.writeOffer(w, r, rc, o, rel)
}

func (s *Server) deleteOffer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Offer", nameOf(func() (string, error) {
		o, err := rc.svc.Offers.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return o.Title, err
	}), r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.Offers.Delete(r.Context(), tenant(rc), r.PathValue("id"))
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) customerOffers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return customerOfferPage(s, w, r, rc, loyalty.CustomerOfferSpec, "offers", toCustomerOfferJSON,
		func(id string, lq loyalty.ListQuery) ([]loyalty.CustomerOffer, int, error) {
			return rc.svc.Offers.CustomerOffers(r.Context(), tenant(rc), id, lq)
		})
}

// customerOfferPage answers with a page of the offers of the customer the
// path names: it reads the relationships and the list query of spec, asks
// list for the page and writes each offer as toJSON renders it with the
// branch picked for it, linked under customers/{id}/path.
func customerOfferPage[T, J any](s *Server, w http.ResponseWriter, r *http.Request, rc *reqCtx, spec loyalty.ListSpec, path string,
	toJSON func(T, *branchPicker) J, list func(id string, lq loyalty.ListQuery) ([]T, int, error)) error {
	q := r.URL.Query()
	rel, err := relationships(q)
	if err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, spec)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	items, total, err := list(id, lq)
	if err != nil {
		return err
	}
	p, err := s.branchPicker(r.Context(), rc.businessID, rel)
	if err != nil {
		return err
	}
	data := make([]J, len(items))
	for i, it := range items {
		data[i] = toJSON(it, p)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data,
		"links": pageLinks("customers/"+strings.ToLower(id)+"/"+path, q, lq, total), "meta": pageMeta(lq, len(items), total)})
	return nil
}

func (s *Server) availableCoupons(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.CustomerCouponSpec)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	list, total, err := rc.svc.Offers.AvailableCoupons(r.Context(), tenant(rc), id, lq)
	if err != nil {
		return err
	}
	data := make([]*loyalty.CouponJSON, len(list))
	for i, cp := range list {
		data[i] = loyalty.NewCouponJSON(cp)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data,
		"links": pageLinks("customers/"+strings.ToLower(id)+"/available-coupons", q, lq, total), "meta": pageMeta(lq, len(list), total)})
	return nil
}

// claimableOfferJSON is an offer that would apply to the customer's
// purchase, with its rank (the reference's priority).
type claimableOfferJSON struct {
	customerOfferJSON
	Priority int `json:"priority"`
}

// targetedOffers answers with the active offers targeted at the customer.
// include=coupon of the reference is not kept: a coupon's state is the
// offer's coupon_type_id here.
func (s *Server) targetedOffers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return customerOfferPage(s, w, r, rc, loyalty.TargetedOfferSpec, "targeted-offers", toCustomerOfferJSON,
		func(id string, lq loyalty.ListQuery) ([]loyalty.CustomerOffer, int, error) {
			return rc.svc.Offers.TargetedOffers(r.Context(), tenant(rc), id, lq)
		})
}

// claimableOffers answers with the offers that would apply to the
// customer's purchase of amount at branch_id, with their rank.
func (s *Server) claimableOffers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	return customerOfferPage(s, w, r, rc, loyalty.ClaimableOfferSpec, "claimable-offers",
		func(co loyalty.ClaimableOffer, p *branchPicker) claimableOfferJSON {
			return claimableOfferJSON{customerOfferJSON: toCustomerOfferJSON(co.CustomerOffer, p), Priority: co.Priority}
		},
		func(id string, lq loyalty.ListQuery) ([]loyalty.ClaimableOffer, int, error) {
			return rc.svc.Offers.ClaimableOffers(r.Context(), tenant(rc), id, q.Get("amount"), q.Get("branch_id"), lq)
		})
}
