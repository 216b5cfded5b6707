package loyalty

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Purposes of the single-use secrets sent to a person.
const (
	SecretVerify     = "verify"      // confirms an e-mail or phone
	SecretResetToken = "reset_token" // resets a PIN by token
	SecretResetCode  = "reset_code"  // resets a PIN by a 6-digit code
)

// Lifetimes and limits of the secrets.
const (
	VerifyTTL    = 24 * time.Hour
	ResetTTL     = time.Hour
	MaxCodeTries = 5
	CodeDigits   = 6
)

// Message channels.
const (
	ChannelEmail = "email"
	ChannelSMS   = "sms"
)

// Contact kinds, the columns a verification flips.
const (
	ContactEmail = "email"
	ContactPhone = "phone"
)

// Reset modes of POST /users/pincode/reset-request.
var ResetModes = []string{"token", "verification_code"}

// Message is an e-mail or text message in the outbox, written in the same
// transaction as the change that causes it.
type Message struct {
	ID      int64
	Channel string // ChannelEmail or ChannelSMS
	To      string // e-mail address or E.164 phone
	Subject string // e-mail only
	Body    string
	// Headers are extra e-mail headers (List-Unsubscribe); none for a text.
	Headers   map[string]string
	CreatedAt time.Time
}

// UserSecret is a single-use token or code sent to a person, kept hashed.
type UserSecret struct {
	ID        int64
	UserID    string
	Purpose   string
	Target    string // the e-mail or phone it was sent to
	Hash      []byte
	Tries     int
	ExpiresAt time.Time
	UsedAt    time.Time
	CreatedAt time.Time
}

// Usable reports whether the secret may still be used at now.
func (s UserSecret) Usable(now time.Time) bool {
	return s.UsedAt.IsZero() && s.ExpiresAt.After(now) && s.Tries < MaxCodeTries
}

// UserInput is the body of POST /users and PATCH /users/{id}. Every field
// records whether it was sent.
type UserInput struct {
	Email        Opt[string]          `json:"email"`
	Phone        Opt[string]          `json:"phone"`
	CountryCode  Opt[string]          `json:"country_code"`
	FirstName    Opt[string]          `json:"first_name"`
	LastName     Opt[string]          `json:"last_name"`
	BirthDate    Opt[string]          `json:"birth_date"`
	Language     Opt[string]          `json:"language"`
	Gender       Opt[string]          `json:"gender"`
	PinCode      Opt[json.RawMessage] `json:"pin_code"`
	ProfilePhoto Opt[string]          `json:"profile_photo"`
}

// profile returns the person fields as a customer body, so both APIs
// validate them by the same rules.
func (in *UserInput) profile() CustomerInput {
	return CustomerInput{Email: in.Email, Phone: in.Phone, CountryCode: in.CountryCode, FirstName: in.FirstName,
		LastName: in.LastName, BirthDate: in.BirthDate, Language: in.Language, Gender: in.Gender}
}

// VerificationInput is the body of POST /users/credentials/verification.
type VerificationInput struct {
	Token       Opt[string] `json:"token"`
	Email       Opt[string] `json:"email"`
	Phone       Opt[string] `json:"phone"`
	CountryCode Opt[string] `json:"country_code"`
}

// ResetRequestInput is the body of POST /users/pincode/reset-request.
type ResetRequestInput struct {
	Mode        Opt[string] `json:"mode"`
	Email       Opt[string] `json:"email"`
	Phone       Opt[string] `json:"phone"`
	CountryCode Opt[string] `json:"country_code"`
}

// ResetInput is the body of POST /users/pincode/reset.
type ResetInput struct {
	Token            Opt[string]          `json:"token"`
	VerificationCode Opt[json.RawMessage] `json:"verification_code"`
	PinCode          Opt[json.RawMessage] `json:"pin_code"`
	Email            Opt[string]          `json:"email"`
	Phone            Opt[string]          `json:"phone"`
	CountryCode      Opt[string]          `json:"country_code"`
}

// contact reads the e-mail, or the phone with its country code, that names
// a person; it records problems in v and says which kind was given.
func contact(v Validation, email, phone, country Opt[string]) (kind, value string) {
	var u User
	in := CustomerInput{Email: email, Phone: phone, CountryCode: country}
	in.validateProfile(v, &u, "")
	switch {
	case u.Email != "":
		return ContactEmail, u.Email
	case u.Phone != "":
		return ContactPhone, u.Phone
	case !v.Has("email") && !v.Has("phone") && !v.Has("country_code"):
		v.Add("email", "The email field is required when phone is not present.")
		v.Add("phone", "The phone field is required when email is not present.")
	}
	return "", ""
}

// digits reads a numeric secret of a body (a PIN or a code): a JSON number
// or a string of digits, with between min and max digits. It returns ""
// when the field was not sent, recording problems in v.
func digits(v Validation, field string, o Opt[json.RawMessage], min, max int) string {
	if !o.Set || o.Null {
		return ""
	}
	raw := bytes.TrimSpace(o.V)
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			s = "?"
		}
	} else {
		s = string(raw)
	}
	name := strings.ReplaceAll(field, "_", " ")
	if s == "" || strings.Trim(s, "0123456789") != "" {
		v.Add(field, "The "+name+" must be a number made of digits only.")
		return ""
	}
	if len(s) < min || len(s) > max {
		if min == max {
			v.Add(field, "The "+name+" must have "+itoa(min)+" digits.")
		} else {
			v.Add(field, "The "+name+" must have "+itoa(min)+" to "+itoa(max)+" digits.")
		}
		return ""
	}
	return s
}

// invalidToken is the 422 of a token that is unknown, used or expired.
func invalidToken() error { return Invalid("token", "The token is invalid or has expired.") }

// invalidCode is the 422 of a wrong, used or expired verification code.
func invalidCode() error {
	return Invalid("verification_code", "The verification code is invalid or has expired.")
}
