// Package wallet is the member wallet's use cases: what a member signed
// in to one business's wallet page sees and does there. It calls the
// domain's services and decides nothing of its own; every call is scoped
// to one business and one member, both taken from the member's session,
// never from a form.
package wallet

import (
	"context"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Backend is what the wallet reads directly.
type Backend interface {
	Business(ctx context.Context, id string) (loyalty.Business, error)
	BusinessProfile(ctx context.Context, businessID string) (loyalty.BusinessProfile, error)
}

// Desk runs the wallet's use cases.
type Desk struct {
	Services loyalty.Services
	Store    Backend
}

// Business is a business as its wallet wears it.
type Business struct {
	loyalty.Business
	Profile loyalty.BusinessProfile
}

// Name is the name the wallet shows: the profile's, else the business's.
func (b Business) Name() string {
	if n := strings.TrimSpace(b.Profile.Name); n != "" {
		return n
	}
	return b.Business.Name
}

// Program is the business as the user service's rules take it.
func (b Business) Program() loyalty.Program {
	return loyalty.Program{Name: b.Name(), Businesses: []loyalty.Business{b.Business}}
}

// Open reads the business of a wallet page; a malformed or unknown id is
// ENotFound.
func (d *Desk) Open(ctx context.Context, id string) (Business, error) {
	if !loyalty.ValidID(id) {
		return Business{}, loyalty.Errorf(loyalty.ENotFound, "Business not found.")
	}
	b, err := d.Store.Business(ctx, id)
	if err != nil {
		return Business{}, err
	}
	prof, err := d.Store.BusinessProfile(ctx, id)
	if err != nil {
		return Business{}, err
	}
	return Business{Business: b, Profile: prof}, nil
}

// on is the services on b's clock, as the APIs and the console use them.
func (d *Desk) on(b Business) loyalty.Services { return d.Services.ClockedBy(b.ClockOffset) }

// Member returns the membership of memberID in b: ENotFound when they
// are not (or no longer) an active member.
func (d *Desk) Member(ctx context.Context, b Business, memberID string) (loyalty.Membership, error) {
	ms, err := d.on(b).Users.Memberships(ctx, b.Program(), memberID)
	if err != nil {
		return loyalty.Membership{}, err
	}
	return d.on(b).Users.Business(ms, b.ID)
}

// Home is the wallet's first page: the member, their balance and tier
// standing, their punch cards and the code the counter scans.
type Home struct {
	Member loyalty.CustomerView
	Code   loyalty.MemberCode
}

// Home reads the wallet's first page of memberID.
func (d *Desk) Home(ctx context.Context, b Business, memberID string) (Home, error) {
	svc := d.on(b)
	v, err := svc.Customers.View(ctx, b.Business, memberID, map[string]bool{"tier_progress": true, "punch_cards": true})
	if err != nil {
		return Home{}, err
	}
	return Home{Member: v, Code: svc.MemberCodes.Issue(b.Business, memberID)}, nil
}

// Code returns memberID's current code.
func (d *Desk) Code(b Business, memberID string) loyalty.MemberCode {
	return d.on(b).MemberCodes.Issue(b.Business, memberID)
}

// RequestSignInCode sends a sign-in code to a member of b named by in.
func (d *Desk) RequestSignInCode(ctx context.Context, b Business, in loyalty.SignInCodeInput) error {
	return d.on(b).Users.RequestSignInCode(ctx, b.Program(), in)
}

// SignInWithCode returns the member of b a sign-in code proves.
func (d *Desk) SignInWithCode(ctx context.Context, b Business, in loyalty.SignInCodeInput) (string, error) {
	return d.on(b).Users.SignInWithCode(ctx, b.Program(), in)
}
