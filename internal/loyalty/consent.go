package loyalty

import "time"

// A member's choices of what they hear from a business, on which channel:
// marketing consent (offers, campaigns: nothing unless they said yes) and
// notification preferences (messages about their own account, such as
// points about to expire: on unless they said no). Each change is a new
// record, never a rewrite; the newest record of a kind is the choice in
// force. Transactional messages (verification, PIN reset) go whatever
// either says.

// Kinds of choice.
const (
	ConsentMarketing     = "marketing"
	ConsentNotifications = "notifications"
)

// Where a choice was made.
const (
	ConsentFromApp     = "app"     // the member, through the user API
	ConsentFromConsole = "console" // the business's staff, at the console
	ConsentFromImport  = "import"  // a customers import
	ConsentFromAPI     = "api"     // the business's app, through the business API
)

// ContactChannels are the channels a choice allows a business to reach a
// customer on.
type ContactChannels struct {
	Email bool
	SMS   bool
	Push  bool
}

// Consent is one recorded choice of a customer of a business.
type Consent struct {
	ID         int64
	BusinessID string
	CustomerID string
	Kind       string
	ContactChannels
	Source    string // ConsentFromApp, ...
	By        string // who made it: the member's id, a staff member's e-mail, an app's name, an import's file
	CreatedAt time.Time
}

// defaultChannels are a kind's channels before any choice: no marketing
// without a yes, every notification without a no.
func defaultChannels(kind string) ContactChannels {
	if kind == ConsentNotifications {
		return ContactChannels{Email: true, SMS: true, Push: true}
	}
	return ContactChannels{}
}

// ConsentInput is a change of a choice: the channels it names, the others
// kept as they are.
type ConsentInput struct {
	BusinessID Opt[string] `json:"business_id"` // the user API's: which of the member's businesses
	Email      Opt[bool]   `json:"allow_email"`
	SMS        Opt[bool]   `json:"allow_sms"`
	Push       Opt[bool]   `json:"allow_push"`
}

// apply returns ch with the channels in names changed; all requires
// every channel to be named (the business API's POST, as the reference's).
func (in ConsentInput) apply(ch ContactChannels, all bool) (ContactChannels, error) {
	v := Validation{}
	set := 0
	for _, f := range []struct {
		name string
		in   Opt[bool]
		to   *bool
	}{{"allow_email", in.Email, &ch.Email}, {"allow_sms", in.SMS, &ch.SMS}, {"allow_push", in.Push, &ch.Push}} {
		if !f.in.Set {
			if all {
				v.Add(f.name, "The "+f.name+" field is required (true or false).")
			}
			continue
		}
		b, ok := f.in.Value()
		if !ok {
			v.Add(f.name, "The "+f.name+" field must be true or false.")
			continue
		}
		*f.to = b
		set++
	}
	if set == 0 && len(v) == 0 {
		v.Add("allow_email", "Send at least one of allow_email, allow_sms and allow_push.")
	}
	return ch, v.Err()
}

// Reach is how a message that the choice ch governs reaches customer c:
// by e-mail when it allows e-mail and c has an address, else by text when
// it allows SMS and c has a number; false when neither.
func Reach(ch ContactChannels, c Customer) (kind, to string, ok bool) {
	switch {
	case ch.Email && c.Email != "":
		return ContactEmail, c.Email, true
	case ch.SMS && c.Phone != "":
		return ContactPhone, c.Phone, true
	}
	return "", "", false
}
