package console

import (
	"net/url"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The e-mails of the web portals' accounts: an invitation to a business's
// staff and a password reset. Each carries its token on a line of its own,
// "Token: <token>", like the messages sent to customers.

// withToken returns page with the token as its token query parameter, or
// "" when there is no page to link to.
func withToken(page, token string) string {
	if page == "" {
		return ""
	}
	sep := "?"
	if strings.Contains(page, "?") {
		sep = "&"
	}
	return page + sep + "token=" + url.QueryEscape(token)
}

// invitationMessage invites a person to a business's staff.
func invitationMessage(business, to, role, inviter, acceptURL, token string) loyalty.Message {
	var b strings.Builder
	b.WriteString(loyalty.Greeting(""))
	b.WriteString(inviter + " invited you to join the team of " + business + " on Loyalty, as " + article(role) + " " + role + ".\n\n")
	if link := withToken(acceptURL, token); link != "" {
		b.WriteString("Choose your password here to accept (valid 72 hours, once):\n" + link + "\n\n")
	} else {
		b.WriteString("To accept, open the invitation page of the business console (/business/invitation) and enter this token (valid 72 hours, once).\n\n")
	}
	b.WriteString("Your invitation token:\n")
	b.WriteString("Token: " + token + "\n\n")
	b.WriteString("Then sign in to the business console with this e-mail address. If you did not expect this, ignore this message.\n")
	return loyalty.Message{Channel: loyalty.ChannelEmail, To: to, Subject: "Join " + business + " on Loyalty", Body: b.String()}
}

// passwordResetMessage sends a password-reset token for an account of a
// portal.
func passwordResetMessage(portal, to, resetURL, resetPath, token string) loyalty.Message {
	var b strings.Builder
	b.WriteString(loyalty.Greeting(""))
	b.WriteString("A password reset was requested for your " + portal + " account. If it was not you, ignore this message: your password stays as it is.\n\n")
	if link := withToken(resetURL, token); link != "" {
		b.WriteString("Choose a new password here (valid 1 hour, once):\n" + link + "\n\n")
	} else {
		b.WriteString("Open " + resetPath + " on your Loyalty service and enter this token (valid 1 hour, once).\n\n")
	}
	b.WriteString("Your reset token:\n")
	b.WriteString("Token: " + token + "\n")
	return loyalty.Message{Channel: loyalty.ChannelEmail, To: to, Subject: "Reset your " + portal + " password", Body: b.String()}
}

// article is "a" or "an" before word.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
