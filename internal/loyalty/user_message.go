package loyalty

import (
	"crypto/rand"
	"encoding/base64"
	"math/big"
	"net/url"
	"strings"
)

// The secrets a person receives and the messages that carry them. Each
// message carries its secret on a line of its own, "Token: <token>" or
// "Code: <digits>", and a generated PIN on a line "PIN: <digits>", so that
// people and programs can find them.

// NewToken returns a random single-use token of 32 bytes, base64url.
func NewToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// randomDigits returns n random decimal digits.
func randomDigits(n int) string {
	out := make([]byte, n)
	ten := big.NewInt(10)
	for i := range out {
		d, err := rand.Int(rand.Reader, ten)
		if err != nil {
			panic(err)
		}
		out[i] = byte('0' + d.Int64())
	}
	return string(out)
}

// codeSecret is what a code is hashed as: bound to its person, so equal
// codes of two people differ.
func codeSecret(userID, code string) string { return "code:" + userID + ":" + code }

// messageTo addresses a message to a contact of the given kind.
func messageTo(kind, to, subject, body string) Message {
	m := Message{Channel: ChannelEmail, To: to, Subject: subject, Body: body}
	if kind == ContactPhone {
		m.Channel, m.Subject = ChannelSMS, ""
	}
	return m
}

// Greeting opens a message with the person's first name when known.
func Greeting(firstName string) string {
	if firstName == "" {
		return "Hello,\n\n"
	}
	return "Hello " + firstName + ",\n\n"
}

// welcomeMessage welcomes a new user on one contact, with the token that
// verifies that contact and, when the PIN was generated, the PIN.
func welcomeMessage(program, kind, to, firstName, token, pin string) Message {
	var b strings.Builder
	what := "e-mail address"
	if kind == ContactPhone {
		what = "phone number"
	}
	if kind == ContactEmail {
		b.WriteString(Greeting(firstName))
		b.WriteString("Welcome to " + program + "! Your account is ready.\n\n")
	} else {
		b.WriteString("Welcome to " + program + "!\n")
	}
	if pin != "" {
		b.WriteString("Your PIN is on the next line; sign in with it and keep it secret.\n")
		b.WriteString("PIN: " + pin + "\n\n")
	}
	b.WriteString("Confirm your " + what + " with this token (valid 24 hours):\n")
	b.WriteString("Token: " + token + "\n")
	return messageTo(kind, to, "Welcome to "+program, b.String())
}

// customerWelcomeMessage welcomes a person a business enrolled: the token
// confirms the contact, and a PIN reset gives the PIN to sign in with.
func customerWelcomeMessage(program, kind, to, firstName, token string) Message {
	var b strings.Builder
	what := "e-mail address"
	if kind == ContactPhone {
		what = "phone number"
	} else {
		b.WriteString(Greeting(firstName))
	}
	b.WriteString("Welcome to " + program + "'s rewards! You are now collecting points.\n")
	b.WriteString("To sign in to the app, ask for a PIN reset with this " + what + ".\n\n")
	b.WriteString("Confirm your " + what + " with this token (valid 24 hours):\n")
	b.WriteString("Token: " + token + "\n")
	if kind == ContactEmail {
		// The business signs its own welcome (its profile's name).
		b.WriteString("\nSee you soon,\n" + program + "\n")
	}
	return messageTo(kind, to, "Welcome to "+program, b.String())
}

// verifyMessage asks a person to confirm a new e-mail or phone.
func verifyMessage(program, kind, to, firstName, token string) Message {
	var b strings.Builder
	what := "e-mail address"
	if kind == ContactPhone {
		what = "phone number"
	}
	if kind == ContactEmail {
		b.WriteString(Greeting(firstName))
	}
	b.WriteString("Confirm your new " + what + " for " + program + " with this token (valid 24 hours):\n")
	b.WriteString("Token: " + token + "\n")
	return messageTo(kind, to, "Confirm your "+what, b.String())
}

// resetTokenMessage sends a PIN-reset token, with a link when the service
// knows where its reset page is.
func resetTokenMessage(program, kind, to, firstName, token, link string) Message {
	var b strings.Builder
	if kind == ContactEmail {
		b.WriteString(Greeting(firstName))
	}
	b.WriteString("A new PIN was requested for your " + program + " account. ")
	b.WriteString("If it was not you, ignore this message.\n")
	if link != "" {
		sep := "?"
		if strings.Contains(link, "?") {
			sep = "&"
		}
		b.WriteString("Choose a new PIN here: " + link + sep + "token=" + url.QueryEscape(token) + "\n")
	}
	b.WriteString("Your reset token (valid 1 hour):\n")
	b.WriteString("Token: " + token + "\n")
	return messageTo(kind, to, "Reset your PIN", b.String())
}

// resetCodeMessage sends a 6-digit PIN-reset code.
func resetCodeMessage(program, kind, to, firstName, code string) Message {
	var b strings.Builder
	if kind == ContactEmail {
		b.WriteString(Greeting(firstName))
	}
	b.WriteString("Your " + program + " PIN reset code (valid 1 hour). If you did not ask for it, ignore this message.\n")
	b.WriteString("Code: " + code + "\n")
	return messageTo(kind, to, "Your PIN reset code", b.String())
}
