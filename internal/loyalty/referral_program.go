package loyalty

import (
	"context"
	"net/url"
	"strconv"
	"strings"
)

// ReferralProgram pays a referee and a referrer for a qualifying first purchase.
type ReferralProgram struct {
	ID                  int64
	BusinessID          string
	RuleName            string
	CondMinAmount       Money
	RefereeEarns        int64
	RefererEarns        int64
	ExpiresIn           int64 // days
	Enabled             bool
	LinkReferralEnabled bool
}

// Bounds and defaults of a referral program.
const (
	DefaultReferralRuleName = "REFERRAL_RULES_PURCHASE"
	MaxReferralExpiresIn    = 3650 // days
	maxRuleName             = 100
)

// ReferralLinkPath is the path of the public page where a friend of
// referrerID joins through program programID (the referral_link of a
// customer's referral programs).
func ReferralLinkPath(programID int64, referrerID string) string {
	return "/referrals/" + strconv.FormatInt(programID, 10) + "?referrer_id=" + url.QueryEscape(referrerID)
}

// Shared reports whether the program's referral link leads anywhere: the
// program is enabled and shared by link.
func (p ReferralProgram) Shared() bool { return p.Enabled && p.LinkReferralEnabled }

// Invitation is an open referral link: a Shared program, its business,
// and the customer who shares the link.
type Invitation struct {
	Business Business
	Program  ReferralProgram
	Referrer Customer // zero from ReferralOffer
}

// errInvitation answers every link that does not lead to an open
// invitation, without telling which part was wrong.
var errInvitation = Errorf(ENotFound, "This invitation link is not valid, or the offer has ended.")

// ReferralOffer returns the program a referral link names, with its
// business; a program that is missing or not Shared is ENotFound.
func (s *CustomerService) ReferralOffer(ctx context.Context, programID int64) (Invitation, error) {
	if programID <= 0 {
		return Invitation{}, errInvitation
	}
	p, err := s.Store.ReferralProgramByID(ctx, programID)
	if ErrorCode(err) == ENotFound || (err == nil && !p.Shared()) {
		return Invitation{}, errInvitation
	} else if err != nil {
		return Invitation{}, err
	}
	b, err := s.Store.Business(ctx, p.BusinessID)
	if err != nil {
		return Invitation{}, err
	}
	return Invitation{Business: b, Program: p}, nil
}

// Invitation is ReferralOffer with the referrer, who must be an active
// customer of the program's business; any other referrer is the same
// ENotFound as a bad program.
func (s *CustomerService) Invitation(ctx context.Context, programID int64, referrerID string) (Invitation, error) {
	inv, err := s.ReferralOffer(ctx, programID)
	if err != nil {
		return Invitation{}, err
	}
	referrerID = strings.ToLower(strings.TrimSpace(referrerID))
	if !ValidID(referrerID) {
		return Invitation{}, errInvitation
	}
	inv.Referrer, err = s.Store.Customer(ctx, inv.Business.ID, referrerID)
	if ErrorCode(err) == ENotFound {
		return Invitation{}, errInvitation
	}
	return inv, err
}

// Join creates the customer in, referred through inv. The referral's
// rules are checked again in the change, as for POST /customers.
func (s *CustomerService) Join(ctx context.Context, inv Invitation, in CustomerInput) (Customer, error) {
	in.Referral = Some(ReferralInput{ProgramID: Some(inv.Program.ID), ReferrerID: Some(inv.Referrer.ID)})
	return s.Create(ctx, inv.Business, in)
}

// ReferralProgramInput is the body of POST /referral-programs and PUT
// /referral-programs/{id}. A create needs cond_min_amount, referee_earns,
// referer_earns and expires_in (as on the reference platform); an update
// changes only the fields sent.
type ReferralProgramInput struct {
	RuleName            Opt[string] `json:"rule_name"`
	CondMinAmount       Opt[Money]  `json:"cond_min_amount"`
	RefereeEarns        Opt[int64]  `json:"referee_earns"`
	RefererEarns        Opt[int64]  `json:"referer_earns"`
	ExpiresIn           Opt[int64]  `json:"expires_in"`
	Enabled             Opt[bool]   `json:"enabled"`
	LinkReferralEnabled Opt[bool]   `json:"link_referral_enabled"`
}

// apply validates in and merges it into p.
func (in ReferralProgramInput) apply(b Business, p *ReferralProgram, creating bool) error {
	v := Validation{}
	required := func(field string, set bool) bool {
		if !set && creating {
			v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" field is required.")
		}
		return set
	}
	if in.RuleName.Set {
		name := strings.TrimSpace(in.RuleName.V)
		switch {
		case in.RuleName.Null || name == "":
			v.Add("rule_name", "The rule name may not be empty.")
		case len(name) > maxRuleName:
			v.Add("rule_name", "The rule name may not be greater than "+itoa(maxRuleName)+" characters.")
		default:
			p.RuleName = name
		}
	}
	if required("cond_min_amount", in.CondMinAmount.Set) {
		if a, ok := in.CondMinAmount.Value(); !ok || a < 0 || a > MaxMoney {
			v.Add("cond_min_amount", "The cond min amount must be an amount between 0 and "+MaxMoney.String()+".")
		} else {
			p.CondMinAmount = a
			b.checkDecimals(v, "cond_min_amount", a)
		}
	}
	for _, f := range []struct {
		name string
		o    Opt[int64]
		dst  *int64
		max  int64
	}{
		{"referee_earns", in.RefereeEarns, &p.RefereeEarns, maxPoints},
		{"referer_earns", in.RefererEarns, &p.RefererEarns, maxPoints},
		{"expires_in", in.ExpiresIn, &p.ExpiresIn, MaxReferralExpiresIn},
	} {
		if !required(f.name, f.o.Set) {
			continue
		}
		if x, ok := f.o.Value(); !ok || x < 0 || x > f.max {
			v.Add(f.name, "The "+strings.ReplaceAll(f.name, "_", " ")+" must be a whole number between 0 and "+itoa(int(f.max))+".")
		} else {
			*f.dst = x
		}
	}
	for _, f := range []struct {
		name string
		o    Opt[bool]
		dst  *bool
	}{{"enabled", in.Enabled, &p.Enabled}, {"link_referral_enabled", in.LinkReferralEnabled, &p.LinkReferralEnabled}} {
		if !f.o.Set {
			continue
		}
		if x, ok := f.o.Value(); ok {
			*f.dst = x
		} else {
			v.Add(f.name, "The "+strings.ReplaceAll(f.name, "_", " ")+" field must be true or false.")
		}
	}
	return v.Err()
}

// ReferralProgramService holds the rules of a business's referral
// programs. One at most is enabled: creating an enabled program, or
// enabling one, disables the others (the reference platform's rule). A
// referral already linked keeps its program; a referee whose first
// qualifying reward comes while that program is disabled closes the
// referral unpaid (see TransactionService).
type ReferralProgramService struct {
	Store Store
}

// List returns the referral programs of a business, oldest first.
func (s *ReferralProgramService) List(ctx context.Context, b Business) ([]ReferralProgram, error) {
	return s.Store.ReferralPrograms(ctx, b.ID)
}

// ReferralProgramListSpec says how GET /referral-programs is paged: no
// filters.
var ReferralProgramListSpec = ListSpec{DefaultPerPage: 100}

// Page pages the referral programs of a business, oldest first.
func (s *ReferralProgramService) Page(ctx context.Context, b Business, q ListQuery) ([]ReferralProgram, int, error) {
	return s.Store.ReferralProgramPage(ctx, b.ID, q)
}

// Get returns one referral program of a business.
func (s *ReferralProgramService) Get(ctx context.Context, b Business, id int64) (ReferralProgram, error) {
	if id <= 0 {
		return ReferralProgram{}, referralProgramNotFound()
	}
	p, err := s.Store.ReferralProgram(ctx, b.ID, id)
	return p, asNotFound(err, referralProgramNotFound)
}

// Create adds a referral program; enabled, it disables the others.
func (s *ReferralProgramService) Create(ctx context.Context, b Business, in ReferralProgramInput) (ReferralProgram, error) {
	p := ReferralProgram{BusinessID: b.ID, RuleName: DefaultReferralRuleName, Enabled: true, LinkReferralEnabled: true}
	if err := in.apply(b, &p, true); err != nil {
		return ReferralProgram{}, err
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		if err := tx.LockPrograms(ctx, b.ID); err != nil {
			return err
		}
		if err := tx.InsertReferralProgram(ctx, &p); err != nil {
			return err
		}
		if p.Enabled {
			return tx.DisableReferralPrograms(ctx, b.ID, p.ID)
		}
		return nil
	})
	return p, err
}

// Update changes a referral program; enabling it disables the others.
func (s *ReferralProgramService) Update(ctx context.Context, b Business, id int64, in ReferralProgramInput) (ReferralProgram, error) {
	if id <= 0 {
		return ReferralProgram{}, referralProgramNotFound()
	}
	var out ReferralProgram
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		if err := tx.LockPrograms(ctx, b.ID); err != nil {
			return err
		}
		p, err := tx.ReferralProgram(ctx, b.ID, id)
		if err != nil {
			return asNotFound(err, referralProgramNotFound)
		}
		if err := in.apply(b, &p, false); err != nil {
			return err
		}
		if err := tx.UpdateReferralProgram(ctx, &p); err != nil {
			return err
		}
		out = p
		if p.Enabled {
			return tx.DisableReferralPrograms(ctx, b.ID, p.ID)
		}
		return nil
	})
	return out, err
}

func referralProgramNotFound() error { return Errorf(ENotFound, "Referral program not found.") }
