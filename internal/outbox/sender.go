package outbox

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/smtp"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultFrom is the sender address of e-mails unless configured.
const DefaultFrom = "Loyalty <no-reply@loyalty.localhost>"

// Senders returns the senders named by the --smtp and --sms-gateway
// settings: "" or "file:" writes under <dataDir>/outbox ("file:DIR" under
// DIR), smtp://[user:pass@]host[:port][?from=ADDR] sends e-mail by SMTP
// (port 25 by default, STARTTLS when the server offers it), smtps://...
// by SMTP over TLS from the first byte (port 465 by default), and an
// http(s):// URL posts text messages to an SMS gateway.
func Senders(smtpURL, smsURL, dataDir string) (map[string]Sender, error) {
	email, err := emailSender(smtpURL, dataDir)
	if err != nil {
		return nil, fmt.Errorf("--smtp: %w", err)
	}
	sms, err := smsSender(smsURL, dataDir)
	if err != nil {
		return nil, fmt.Errorf("--sms-gateway: %w", err)
	}
	return map[string]Sender{Email: email, SMS: sms}, nil
}

func fileDir(spec, dataDir string) string {
	if dir := strings.TrimPrefix(spec, "file:"); dir != "" {
		return dir
	}
	return filepath.Join(dataDir, "outbox")
}

func emailSender(spec, dataDir string) (Sender, error) {
	if spec == "" || strings.HasPrefix(spec, "file:") {
		return &FileSender{Dir: fileDir(spec, dataDir)}, nil
	}
	u, err := url.Parse(spec)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Host == "" {
		return nil, fmt.Errorf("want smtp://host:port, smtps://host:port or file:, got %q", spec)
	}
	s := &SMTPSender{Addr: u.Host, From: u.Query().Get("from"), ImplicitTLS: u.Scheme == "smtps"}
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		port := "25"
		if s.ImplicitTLS {
			port = "465"
		}
		s.Addr = net.JoinHostPort(u.Host, port)
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		s.Username, s.Password = u.User.Username(), pass
	}
	return s, nil
}

func smsSender(spec, dataDir string) (Sender, error) {
	if spec == "" || strings.HasPrefix(spec, "file:") {
		return &FileSender{Dir: fileDir(spec, dataDir)}, nil
	}
	u, err := url.Parse(spec)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("want an http(s):// URL or file:, got %q", spec)
	}
	return &HTTPSMS{URL: spec}, nil
}

// FormatEmail renders m as an RFC 5322 message with CRLF line endings.
func FormatEmail(m Message, from string) []byte {
	if from == "" {
		from = DefaultFrom
	}
	var b bytes.Buffer
	h := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	h("From", from)
	h("To", m.To)
	h("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	created := m.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	h("Date", created.UTC().Format(time.RFC1123Z))
	h("Message-ID", "<outbox-"+strconv.FormatInt(m.ID, 10)+"."+strconv.FormatInt(created.Unix(), 10)+"@loyalty>")
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		// A header's value never breaks the header block.
		h(k, strings.NewReplacer("\r", "", "\n", "").Replace(m.Headers[k]))
	}
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "8bit")
	b.WriteString("\r\n")
	body := strings.ReplaceAll(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n", "\r\n")
	b.WriteString(body)
	if !strings.HasSuffix(body, "\r\n") {
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// FileSender is the development sender: it writes each e-mail as an RFC
// 5322 file <id>.eml and each text message as <id>.txt in Dir. Files
// appear whole (written aside, then renamed); a message written again
// replaces its own file.
type FileSender struct {
	Dir  string
	From string
}

// Send writes m to its file.
func (f *FileSender) Send(ctx context.Context, m Message) error {
	if err := os.MkdirAll(f.Dir, 0o750); err != nil {
		return err
	}
	name := fmt.Sprintf("%010d", m.ID)
	var data []byte
	if m.Channel == SMS {
		name += ".txt"
		data = []byte("To: " + m.To + "\n\n" + m.Body)
	} else {
		name += ".eml"
		data = FormatEmail(m, f.From)
	}
	tmp, err := os.CreateTemp(f.Dir, ".sending-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(f.Dir, name))
}

// SMTPSender sends e-mail through an SMTP server (net/smtp). With
// ImplicitTLS the session is TLS from the first byte (smtps, port 465);
// otherwise it upgrades to TLS when the server offers STARTTLS. It
// authenticates when given a username (net/smtp sends the password only
// over TLS, or to localhost).
type SMTPSender struct {
	Addr        string // host:port
	From        string // envelope and header sender; DefaultFrom when empty
	Username    string
	Password    string
	Hello       string // name given in EHLO; "localhost" when empty
	ImplicitTLS bool
	TLS         *tls.Config // nil: the system's roots, the server named by Addr's host
}

// tlsConfig is the TLS configuration for a session with host.
func (s *SMTPSender) tlsConfig(host string) *tls.Config {
	c := &tls.Config{}
	if s.TLS != nil {
		c = s.TLS.Clone()
	}
	if c.ServerName == "" {
		c.ServerName = host
	}
	return c
}

// Send delivers m in one SMTP session.
func (s *SMTPSender) Send(ctx context.Context, m Message) error {
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return err
	}
	var conn net.Conn
	if s.ImplicitTLS {
		d := tls.Dialer{Config: s.tlsConfig(host)}
		conn, err = d.DialContext(ctx, "tcp", s.Addr)
	} else {
		var d net.Dialer
		conn, err = d.DialContext(ctx, "tcp", s.Addr)
	}
	if err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if err := c.Hello(orDefault(s.Hello, "localhost")); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !s.ImplicitTLS {
		if err := c.StartTLS(s.tlsConfig(host)); err != nil {
			return err
		}
	}
	if s.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", s.Username, s.Password, host)); err != nil {
			return err
		}
	}
	from := orDefault(s.From, DefaultFrom)
	envelope := from
	if a, err := parseAddress(from); err == nil {
		envelope = a
	}
	if err := c.Mail(envelope); err != nil {
		return err
	}
	if err := c.Rcpt(m.To); err != nil {
		return err
	}
	wc, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := wc.Write(FormatEmail(m, from)); err != nil {
		wc.Close()
		return err
	}
	if err := wc.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// parseAddress returns the bare address of "Name <addr>".
func parseAddress(s string) (string, error) {
	if i, j := strings.LastIndexByte(s, '<'), strings.LastIndexByte(s, '>'); i >= 0 && j > i {
		return s[i+1 : j], nil
	}
	if strings.Contains(s, "@") {
		return strings.TrimSpace(s), nil
	}
	return "", fmt.Errorf("bad address %q", s)
}

// HTTPSMS sends text messages to an HTTP gateway: a JSON POST of
// {"to": E.164 number, "body": text}; any 2xx reply is success.
type HTTPSMS struct {
	URL    string
	Client *http.Client
}

// Send posts m to the gateway.
func (h *HTTPSMS) Send(ctx context.Context, m Message) error {
	body, _ := json.Marshal(map[string]string{"to": m.To, "body": m.Body})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("sms gateway answered %d: %s", resp.StatusCode, strings.TrimSpace(string(reply)))
	}
	return nil
}
