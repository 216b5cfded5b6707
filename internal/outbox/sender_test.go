package outbox_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/loyalty/loyalty/internal/outbox"
	"github.com/loyalty/loyalty/internal/testenv"
)

// mailbox is an in-process SMTP server (github.com/emersion/go-smtp)
// that keeps what it receives.
type mailbox struct {
	mu   sync.Mutex
	got  []received
	addr string
}

// received is one message as the SMTP server saw it.
type received struct {
	From string
	To   []string
	Data []byte
}

type smtpSession struct {
	box *mailbox
	cur received
}

func (s *smtpSession) Reset()        { s.cur = received{} }
func (s *smtpSession) Logout() error { return nil }
func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.cur.From = from
	return nil
}
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return nil
}
func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = b
	s.box.mu.Lock()
	s.box.got = append(s.box.got, s.cur)
	s.box.mu.Unlock()
	return nil
}

// startSMTP serves SMTP on 127.0.0.1 until the test ends.
func startSMTP(t *testing.T) *mailbox {
	t.Helper()
	box := &mailbox{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{box: box}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	box.addr = ln.Addr().String()
	return box
}

func (b *mailbox) messages() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.got...)
}

func TestSMTPSender(t *testing.T) {
	box := startSMTP(t)
	senders, err := outbox.Senders("smtp://"+box.addr+"?from=Shop%20%3Cshop@example.com%3E", "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := outbox.Message{ID: 7, Channel: outbox.Email, To: "ada@example.com", Subject: "Welcome to Café",
		Body: "Hello,\n.leading dot survives\nToken: abc123\n", CreatedAt: time.Now()}
	if err := senders[outbox.Email].Send(context.Background(), m); err != nil {
		t.Fatalf("send: %v", err)
	}
	got := box.messages()
	if len(got) != 1 || got[0].From != "shop@example.com" || len(got[0].To) != 1 || got[0].To[0] != "ada@example.com" {
		t.Fatalf("server received %+v", got)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(got[0].Data))
	if err != nil {
		t.Fatalf("not an RFC 5322 message: %v", err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	body, _ := io.ReadAll(msg.Body)
	if subject != "Welcome to Café" || msg.Header.Get("To") != "ada@example.com" || msg.Header.Get("Message-Id") == "" ||
		!strings.Contains(string(body), "\r\n.leading dot survives\r\nToken: abc123\r\n") {
		t.Errorf("subject %q, headers %v, body %q", subject, msg.Header, body)
	}

	// A server that is not there is an error, so the worker retries.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	dead := &outbox.SMTPSender{Addr: addr}
	if err := dead.Send(context.Background(), m); err == nil {
		t.Error("sending to a closed port succeeded")
	}
}

func TestSMSGateway(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]string
	fail := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if fail {
			fail = false
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		var m map[string]string
		json.NewDecoder(r.Body).Decode(&m)
		got = append(got, m)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	senders, err := outbox.Senders("", srv.URL+"/sms", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := outbox.Message{ID: 1, Channel: outbox.SMS, To: "+15145550100", Body: "Code: 123456\n"}
	if err := senders[outbox.SMS].Send(context.Background(), m); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a 503 gave %v, want an error naming it", err)
	}
	if err := senders[outbox.SMS].Send(context.Background(), m); err != nil {
		t.Fatalf("send: %v", err)
	}
	if len(got) != 1 || got[0]["to"] != "+15145550100" || got[0]["body"] != "Code: 123456\n" {
		t.Errorf("gateway received %v", got)
	}
}

func TestFileSender(t *testing.T) {
	dir := t.TempDir()
	senders, err := outbox.Senders("", "file:", dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	email := outbox.Message{ID: 12, Channel: outbox.Email, To: "bo@example.com", Subject: "Reset your PIN", Body: "Token: xyz\n", CreatedAt: time.Now()}
	sms := outbox.Message{ID: 13, Channel: outbox.SMS, To: "+33612345678", Body: "Code: 654321\n"}
	for _, m := range []outbox.Message{email, sms, email} {
		if err := senders[m.Channel].Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, "outbox", "*"))
	if len(names) != 2 || filepath.Base(names[0]) != "0000000012.eml" || filepath.Base(names[1]) != "0000000013.txt" {
		t.Fatalf("files %v, want one .eml and one .txt (a re-sent message replaces its file)", names)
	}
	data, _ := os.ReadFile(names[0])
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf(".eml is not RFC 5322: %v", err)
	}
	if _, err := msg.Header.Date(); err != nil || msg.Header.Get("From") == "" || msg.Header.Get("Subject") != "Reset your PIN" {
		t.Errorf("headers %v", msg.Header)
	}
	txt, _ := os.ReadFile(names[1])
	if string(txt) != "To: +33612345678\n\nCode: 654321\n" {
		t.Errorf(".txt holds %q", txt)
	}
	for _, bad := range [][2]string{{"smtp:/nohost", ""}, {"", "ftp://gateway"}, {"imap://x", ""}} {
		if _, err := outbox.Senders(bad[0], bad[1], dir); err == nil {
			t.Errorf("Senders(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

// authSession is a session of a server that asks for AUTH PLAIN and keeps
// the credentials it was given.
type authSession struct {
	smtpSession
	user, pass *string
}

func (s *authSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *authSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		*s.user, *s.pass = username, password
		return nil
	}), nil
}

// TestSMTPSenderImplicitTLS: smtps:// speaks TLS from the first byte (the
// server below never answers in plain text), sends the credentials inside
// it, and refuses a server whose certificate it does not trust.
func TestSMTPSenderImplicitTLS(t *testing.T) {
	cert := testenv.SelfSigned(t)
	box := &mailbox{}
	var user, pass string
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &authSession{smtpSession: smtpSession{box: box}, user: &user, pass: &pass}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert.TLS}}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srv.TLSConfig)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	senders, err := outbox.Senders("smtps://shop:s3cret@"+ln.Addr().String()+"?from=shop@example.com", "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, ok := senders[outbox.Email].(*outbox.SMTPSender)
	if !ok || !s.ImplicitTLS || s.Username != "shop" {
		t.Fatalf("smtps:// gave %#v, want an SMTPSender with implicit TLS and the username", senders[outbox.Email])
	}
	m := outbox.Message{ID: 8, Channel: outbox.Email, To: "bo@example.com", Subject: "Hi", Body: "Hello\n", CreatedAt: time.Now()}

	// The system's roots do not know the test certificate: no mail, and
	// no falling back to plain text.
	if err := s.Send(context.Background(), m); err == nil {
		t.Fatal("sent to a server with an untrusted certificate")
	}
	if len(box.messages()) != 0 || user != "" {
		t.Fatalf("an untrusted server received %v (user %q)", box.messages(), user)
	}

	s.TLS = &tls.Config{RootCAs: cert.Pool}
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatalf("send over TLS: %v", err)
	}
	if got := box.messages(); len(got) != 1 || got[0].To[0] != "bo@example.com" {
		t.Fatalf("server received %+v", got)
	}
	if user != "shop" || pass != "s3cret" {
		t.Errorf("server authenticated %q/%q, want shop/s3cret", user, pass)
	}

	// Without a port, smtps:// means 465 and smtp:// means 25.
	for spec, want := range map[string]string{"smtps://mail.example.com": "mail.example.com:465", "smtp://mail.example.com": "mail.example.com:25"} {
		senders, err := outbox.Senders(spec, "", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if got := senders[outbox.Email].(*outbox.SMTPSender).Addr; got != want {
			t.Errorf("%s: address %q, want %q", spec, got, want)
		}
	}
	if _, err := outbox.Senders("smtpx://mail.example.com", "", t.TempDir()); err == nil {
		t.Error("an unknown scheme was accepted")
	}
}
