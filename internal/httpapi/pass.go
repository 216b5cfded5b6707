package httpapi

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/walletpass"
)

// Passes are the wallets a member may add their card to, each nil when
// the service is not configured for it: its endpoint then answers 404,
// and no page offers its button.
type Passes struct {
	Apple  *walletpass.AppleConfig
	Google *walletpass.GoogleConfig
	// Profiles reads the business's brand colour and logo.
	Profiles interface {
		BusinessProfile(ctx context.Context, businessID string) (loyalty.BusinessProfile, error)
	}
}

// Offers tells which wallets are configured, for a page to show only
// their buttons; none on a nil Passes.
func (p *Passes) Offers() (apple, google bool) {
	if p == nil {
		return false, false
	}
	return p.Apple != nil, p.Google != nil
}

// applePass is GET /users/{user_id}/passes/apple: the member's card of
// one business as an Apple Wallet pass (.pkpass).
func (u *users) applePass(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	p := u.s.Passes
	if p == nil || p.Apple == nil {
		return loyalty.Errorf(loyalty.ENotFound, "No Apple Wallet pass is offered here.")
	}
	d, err := u.passData(r, uc)
	if err != nil {
		return err
	}
	pkpass, err := walletpass.Apple(p.Apple, d)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", walletpass.ContentType)
	h.Set("Content-Disposition", `attachment; filename="loyalty.pkpass"`)
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write(pkpass)
	return nil
}

// googlePass is GET /users/{user_id}/passes/google: the member's "Save to
// Google Wallet" link for their card of one business.
func (u *users) googlePass(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	p := u.s.Passes
	if p == nil || p.Google == nil {
		return loyalty.Errorf(loyalty.ENotFound, "No Google Wallet pass is offered here.")
	}
	d, err := u.passData(r, uc)
	if err != nil {
		return err
	}
	link, err := walletpass.GoogleSaveURL(p.Google, d)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"save_url": link}})
	return nil
}

// passData is what the member's card of the business_id query parameter
// shows (the key's one business when it is left out): the balance from
// the membership, the business's name, colour and logo, and the member's
// customer id as the code the counter scans.
func (u *users) passData(r *http.Request, uc *userCtx) (walletpass.PassData, error) {
	q := r.URL.Query()
	bid := q.Get("business_id")
	if !q.Has("business_id") {
		ids := uc.program.BusinessIDs()
		if len(ids) != 1 {
			return walletpass.PassData{}, loyalty.Invalid("business_id", "The business_id is required: this app serves several businesses.")
		}
		bid = ids[0]
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return walletpass.PassData{}, err
	}
	m, err := uc.svc.Users.Business(ms, bid)
	if err != nil {
		return walletpass.PassData{}, err
	}
	person, err := uc.svc.Users.Person(r.Context(), uc.userID)
	if err != nil {
		return walletpass.PassData{}, err
	}
	prof, err := u.s.Passes.Profiles.BusinessProfile(r.Context(), m.Business.ID)
	if err != nil {
		return walletpass.PassData{}, err
	}
	return walletpass.PassData{
		BusinessID: m.Business.ID, BusinessName: m.Business.Name, Colour: prof.BrandColor, Logo: u.s.passLogo(prof.Logo),
		MemberID: uc.userID, MemberName: strings.TrimSpace(person.FirstName + " " + person.LastName),
		Points: m.Balance.Points, Barcode: uc.userID,
	}, nil
}

// passLogo is the business's logo as a pass carries it, when it is an
// image stored on this service; nil otherwise (an https:// address is
// not fetched: a pass is built from what the service holds).
func (s *Server) passLogo(path string) []byte {
	name, ok := strings.CutPrefix(path, imagesPrefix)
	if !ok || !imageName.MatchString(name) {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(s.ImageDir, name))
	if err != nil {
		return nil
	}
	return walletpass.Logo(data)
}
