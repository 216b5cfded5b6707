package web

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"net/http"
)

// A flash carries what a page shows once after a post redirected to it
// (a new client secret): sealed with AES-GCM under a key derived from the
// server's HMAC key, bound to the page and to the browser's session, kept
// for two minutes, and deleted by the page that shows it. A reload shows
// nothing again and repeats nothing.

const flashTTL = 120 // seconds

// flashCipher is the AEAD flashes are sealed with, made once per server;
// every instance sharing the database derives the same key.
func (s *Server) flashCipher() cipher.AEAD {
	s.flashOnce.Do(func() {
		block, err := aes.NewCipher(s.OAuth.Hash.Token("loyalty web flash key v1"))
		if err != nil {
			panic(err)
		}
		if s.flashAEAD, err = cipher.NewGCM(block); err != nil {
			panic(err)
		}
	})
	return s.flashAEAD
}

// flashData binds a flash to its cookie name, page and session.
func flashData(name, path, session string) []byte {
	return []byte(name + "\x00" + path + "\x00" + session)
}

// setFlash leaves value for the page at path, for the browser signed in
// with session.
func (s *Server) setFlash(w http.ResponseWriter, r *http.Request, name, path, session, value string) {
	a := s.flashCipher()
	nonce := randomBytes(a.NonceSize())
	sealed := a.Seal(nonce, nonce, []byte(value), flashData(name, path, session))
	http.SetCookie(w, &http.Cookie{Name: name, Value: base64.RawURLEncoding.EncodeToString(sealed), Path: path,
		MaxAge: flashTTL, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.Transport.IsHTTPS(r)})
}

// takeFlash returns the flash left for this page and deletes it; "" when
// there is none or it does not open for this page and session.
func (s *Server) takeFlash(w http.ResponseWriter, r *http.Request, name, session string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: r.URL.Path, MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.Transport.IsHTTPS(r)})
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	a := s.flashCipher()
	if err != nil || len(raw) < a.NonceSize() {
		return ""
	}
	out, err := a.Open(nil, raw[:a.NonceSize()], raw[a.NonceSize():], flashData(name, r.URL.Path, session))
	if err != nil {
		return ""
	}
	return string(out)
}
