package web

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// profilePage is the body of the profile template.
type profilePage struct {
	Categories []string
	Currencies []currencyOption // every ISO 4217 code
	TimeZones  []zoneGroup
	Preview    loyalty.BusinessProfile
	Uploads    bool // the logo and cover may be uploaded
	Images     []profileImage
}

// profileImage is the logo's or the cover's field.
type profileImage struct{ Name, Label, Hint string }

// profileImageFields are the profile's images.
var profileImageFields = []profileImage{
	{"logo", "Logo", "A square image, at least 200 pixels wide."},
	{"cover", "Cover image", "A wide image shown at the top of your referral page."},
}

// currencyOption is a currency as the profile's choice shows it: its code
// and its symbol where the business's locale writes one ("EUR (€)").
type currencyOption struct{ Code, Label string }

// currencyOptions are every ISO 4217 code, each with its symbol in the
// business's locale.
func currencyOptions(b loyalty.Business) []currencyOption {
	codes := loyalty.CurrencyCodes()
	out := make([]currencyOption, len(codes))
	for i, c := range codes {
		b.Currency = c
		out[i] = currencyOption{Code: c, Label: c}
		if sym := format.Symbol(b); sym != c {
			out[i].Label = c + " (" + sym + ")"
		}
	}
	return out
}

// profileForm is a profile as the form shows it.
func profileForm(p loyalty.BusinessProfile) map[string]string {
	colour := p.BrandColor
	if colour == "" {
		colour = "#4338ca"
	}
	return map[string]string{"name": p.Name, "about": p.About, "logo": p.Logo, "cover": p.Cover, "category": p.Category,
		"currency": p.Currency, "time_zone": p.TimeZone, "brand_color": colour}
}

func (s *Server) profile(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	p, err := s.Console.Profiles.Get(r.Context(), a)
	if err != nil {
		return err
	}
	return s.renderProfile(w, r, a, http.StatusOK, p, profileForm(p), nil, "")
}

func (s *Server) renderProfile(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, saved loyalty.BusinessProfile,
	form map[string]string, fields map[string][]string, msg string) error {
	v := s.consoleView(r, a, "Business profile")
	v.Form, v.Fields, v.Error = form, fields, msg
	v.Brand, v.Images = newBrandStyle(saved.BrandColor), imageOrigins(saved.Logo, saved.Cover)
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	v.Data = profilePage{Categories: loyalty.BusinessCategories, Currencies: currencyOptions(b), TimeZones: zoneGroups(form["time_zone"]),
		Preview: saved, Uploads: s.Images != nil, Images: profileImageFields}
	s.render(w, r, status, "profile", v)
	return nil
}

func (s *Server) profileSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	f, stored, err := s.profileUpload(r, a)
	if err != nil {
		return err
	}
	in := loyalty.BusinessProfile{Name: f.Get("name"), About: f.Get("about"), Logo: f.Get("logo"), Cover: f.Get("cover"),
		Category: f.Get("category"), Currency: f.Get("currency"), TimeZone: f.Get("time_zone"), BrandColor: f.Get("brand_color")}
	before, err := s.Console.Profiles.Get(r.Context(), a)
	if err == nil {
		err = stored.refused
	}
	if err == nil {
		if path, ok := stored.paths["logo"]; ok {
			in.Logo = path
		}
		if path, ok := stored.paths["cover"]; ok {
			in.Cover = path
		}
		_, err = s.Console.Profiles.Update(r.Context(), a, in)
	}
	if err != nil {
		stored.drop(r, s.Images)
	} else {
		// The images replaced belong to no one now.
		for _, old := range []string{before.Logo, before.Cover} {
			if old != in.Logo && old != in.Cover && s.Images != nil {
				s.Images.DropImage(r.Context(), old)
			}
		}
	}
	if e, ok := err.(*loyalty.Error); ok && (e.Code == loyalty.EInvalid || e.Code == loyalty.EConflict) {
		saved, gerr := s.Console.Profiles.Get(r.Context(), a)
		if gerr != nil {
			return gerr
		}
		form := profileForm(in)
		form["logo"], form["cover"] = f.Get("logo"), f.Get("cover")
		msg := "Please correct the fields marked below."
		if e.Code == loyalty.EConflict {
			msg, form = e.Message, profileForm(saved)
		}
		return s.renderProfile(w, r, a, httpapi.StatusOf(e.Code), saved, form, e.Fields, msg)
	} else if err != nil {
		return err
	}
	redirect(w, "/business/profile?notice=profile")
	return nil
}
