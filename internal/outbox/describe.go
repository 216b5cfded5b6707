package outbox

import (
	"fmt"
	"net/url"
)

// Describe says where a sender delivers, without credentials: for the
// start banner and logs.
func Describe(s Sender) string {
	switch s := s.(type) {
	case *FileSender:
		return "files in " + s.Dir
	case *SMTPSender:
		if s.ImplicitTLS {
			return "smtps://" + s.Addr
		}
		return "smtp://" + s.Addr
	case *HTTPSMS:
		u, err := url.Parse(s.URL)
		if err != nil {
			return "an HTTP gateway"
		}
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		return u.String()
	}
	return fmt.Sprintf("%T", s)
}
