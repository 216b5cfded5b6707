package loyalty_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func TestParseMoney(t *testing.T) {
	good := []struct {
		in   string
		want loyalty.Money
	}{
		{"0", 0},
		{"12", 1200},
		{"12.5", 1250},
		{"12.50", 1250},
		{"12.05", 1205},
		{"0.01", 1},
		{"-0.25", -25},
		{"-7", -700},
		{"1000000000.00", loyalty.MaxMoney},
		{"-1000000000", -loyalty.MaxMoney},
	}
	for _, c := range good {
		got, err := loyalty.ParseMoney(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, nil", c.in, got, err, c.want)
		}
	}
	bad := []string{
		"", "-", "1.005", "0.001", "1.", ".5", "1,50", "1e2", "+1", "--1", "1.2.3", " 1", "1 ", "abc", "0x10",
		"1000000000.01", "-1000000000.01", "999999999999", "9223372036854775807", "12345678901234567890.00",
	}
	for _, s := range bad {
		if got, err := loyalty.ParseMoney(s); !errors.Is(err, loyalty.ErrMoneyFormat) {
			t.Errorf("ParseMoney(%q) = %d, %v; want ErrMoneyFormat", s, got, err)
		}
	}
}

func TestMoneyString(t *testing.T) {
	for m, want := range map[loyalty.Money]string{
		0: "0.00", 1: "0.01", 10: "0.10", 1250: "12.50", 1205: "12.05", -5: "-0.05", -1250: "-12.50",
		loyalty.MaxMoney: "1000000000.00",
	} {
		if got := m.String(); got != want {
			t.Errorf("Money(%d).String() = %q, want %q", int64(m), got, want)
		}
	}
}

type amountBody struct {
	Amount loyalty.Money `json:"amount"`
}

func TestMoneyJSONRoundTrip(t *testing.T) {
	for _, raw := range []string{"0.00", "0.10", "12.50", "-3.07", "1000000000.00"} {
		var b amountBody
		if err := json.Unmarshal([]byte(`{"amount":`+raw+`}`), &b); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"amount":` + raw + `}`; string(out) != want {
			t.Errorf("round trip of %s gave %s, want %s", raw, out, want)
		}
	}
}

func TestMoneyJSONIsExact(t *testing.T) {
	// 0.1 + 0.2 is not 0.3 in floating point; in Money it must be.
	var a, b amountBody
	if err := json.Unmarshal([]byte(`{"amount":0.1}`), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"amount":0.2}`), &b); err != nil {
		t.Fatal(err)
	}
	if sum := a.Amount + b.Amount; sum != 30 || sum.String() != "0.30" {
		t.Errorf("0.1 + 0.2 = %d (%s), want 30 (0.30)", int64(sum), sum)
	}
	var c amountBody
	if err := json.Unmarshal([]byte(`{"amount":19.99}`), &c); err != nil || c.Amount != 1999 {
		t.Errorf("19.99 decoded to %d, %v; want 1999", int64(c.Amount), err)
	}
}

func TestMoneyJSONRejects(t *testing.T) {
	for _, body := range []string{
		`{"amount":1.005}`,
		`{"amount":0.125}`,
		`{"amount":"12.50"}`,
		`{"amount":true}`,
		`{"amount":[1]}`,
		`{"amount":1e20}`,
		`{"amount":1000000000.01}`,
		`{"amount":-99999999999999}`,
	} {
		var b amountBody
		if err := json.Unmarshal([]byte(body), &b); err == nil {
			t.Errorf("decoding %s succeeded with %d, want an error", body, int64(b.Amount))
		}
	}
}

// A malformed amount is a type error naming the field, so that the reply
// can name it as for any other field of the wrong type.
func TestMoneyJSONErrorNamesField(t *testing.T) {
	var body struct {
		Gift struct {
			Amount loyalty.Money `json:"amount"`
		} `json:"gift"`
	}
	for _, raw := range []string{`1.005`, `"12.50"`, `1e20`} {
		err := json.Unmarshal([]byte(`{"gift":{"amount":`+raw+`}}`), &body)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field != "gift.amount" {
			t.Errorf("decoding gift.amount %s gave %v; want a *json.UnmarshalTypeError with Field gift.amount", raw, err)
		}
	}
}

func TestMoneyJSONNullKeepsValue(t *testing.T) {
	b := amountBody{Amount: 500}
	if err := json.Unmarshal([]byte(`{"amount":null}`), &b); err != nil || b.Amount != 500 {
		t.Errorf("null gave %d, %v; want the value unchanged (500)", int64(b.Amount), err)
	}
}
