package outbox

import (
	"path/filepath"
	"testing"
)

func TestDescribe(t *testing.T) {
	senders, err := Senders("smtps://mailer:s3cret@mail.example?from=a@b.example", "https://sms:tok@gw.example/send?key=k", "data")
	if err != nil {
		t.Fatal(err)
	}
	if got := Describe(senders[Email]); got != "smtps://mail.example:465" {
		t.Errorf("e-mail: %q", got)
	}
	if got := Describe(senders[SMS]); got != "https://gw.example/send" {
		t.Errorf("sms: %q", got)
	}
	files, _ := Senders("", "", "data")
	if got, want := Describe(files[Email]), "files in "+filepath.Join("data", "outbox"); got != want {
		t.Errorf("file sender: %q, want %q", got, want)
	}
}
