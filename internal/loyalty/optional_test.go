package loyalty_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func decodeInput(tb testing.TB, body string) loyalty.CustomerInput {
	tb.Helper()
	var in loyalty.CustomerInput
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
	return in
}

func TestOptAbsentNullValue(t *testing.T) {
	in := decodeInput(t, `{"first_name":"Ann","last_name":null,"enabled":false,"address":{"lat":45.5,"long":null}}`)

	if v, ok := in.FirstName.Value(); !ok || v != "Ann" || !in.FirstName.Set || in.FirstName.Null {
		t.Errorf("first_name = %+v, want set to Ann", in.FirstName)
	}
	if _, ok := in.LastName.Value(); ok || !in.LastName.Set || !in.LastName.Null {
		t.Errorf("last_name = %+v, want set and null", in.LastName)
	}
	if _, ok := in.Email.Value(); ok || in.Email.Set || in.Email.Null {
		t.Errorf("email = %+v, want absent", in.Email)
	}
	if v, ok := in.Enabled.Value(); !ok || v {
		t.Errorf("enabled = %+v, want set to false (a zero value is still a value)", in.Enabled)
	}
	addr, ok := in.Address.Value()
	if !ok {
		t.Fatalf("address = %+v, want set", in.Address)
	}
	if v, ok := addr.Lat.Value(); !ok || v != 45.5 {
		t.Errorf("address.lat = %+v", addr.Lat)
	}
	if !addr.Long.Set || !addr.Long.Null || addr.Street.Set {
		t.Errorf("address.long = %+v (want null), street = %+v (want absent)", addr.Long, addr.Street)
	}
}

func TestOptSome(t *testing.T) {
	o := loyalty.Some(int64(7))
	if v, ok := o.Value(); !ok || v != 7 {
		t.Errorf("Some(7).Value() = %d, %v", v, ok)
	}
	var zero loyalty.Opt[string]
	if _, ok := zero.Value(); ok {
		t.Error("the zero Opt must have no value")
	}
}

func TestOptWrongTypeNamesField(t *testing.T) {
	for _, c := range []struct{ body, field string }{
		{`{"first_name":5}`, "first_name"},
		{`{"email":["a@x.io"]}`, "email"},
		{`{"enabled":"yes"}`, "enabled"},
		{`{"address":"1 Main St"}`, "address"},
		{`{"address":{"lat":"north"}}`, "address.lat"},
		{`{"referral":{"referral_program_id":"one"}}`, "referral.referral_program_id"},
	} {
		var in loyalty.CustomerInput
		err := json.Unmarshal([]byte(c.body), &in)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			t.Errorf("%s: error %v, want a *json.UnmarshalTypeError", c.body, err)
			continue
		}
		if te.Field != c.field {
			t.Errorf("%s: UnmarshalTypeError.Field = %q, want %q", c.body, te.Field, c.field)
		}
	}
}

func TestOptMoney(t *testing.T) {
	var body struct {
		Amount loyalty.Opt[loyalty.Money] `json:"amount"`
	}
	if err := json.Unmarshal([]byte(`{"amount":12.5}`), &body); err != nil {
		t.Fatal(err)
	}
	if v, ok := body.Amount.Value(); !ok || v != 1250 {
		t.Errorf("amount = %+v, want 1250", body.Amount)
	}
	if err := json.Unmarshal([]byte(`{"amount":12.505}`), &body); err == nil {
		t.Error("an amount with three decimals must be refused inside Opt too")
	}
}

// oldOpt is Opt as it decoded before its plain values skipped
// encoding/json: the reference FuzzOptDecodesAsBefore holds Opt to.
type oldOpt[T any] struct {
	Set, Null bool
	V         T
}

func (o *oldOpt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.V)
}

// sameDecoding decodes body into both and reports how they differ, "" for
// not at all (the same error text, or the same values).
func sameDecoding[T comparable](body []byte) string {
	var got struct {
		A loyalty.Opt[T] `json:"a"`
	}
	var want struct {
		A oldOpt[T] `json:"a"`
	}
	gerr, werr := json.Unmarshal(body, &got), json.Unmarshal(body, &want)
	switch {
	case (gerr == nil) != (werr == nil):
		return fmt.Sprintf("error %v, before %v", gerr, werr)
	case gerr != nil && gerr.Error() != strings.ReplaceAll(werr.Error(), "loyalty_test.oldOpt", "loyalty.Opt"):
		return fmt.Sprintf("error %q, before %q", gerr, werr)
	case gerr == nil && (got.A.Set != want.A.Set || got.A.Null != want.A.Null || got.A.V != want.A.V):
		return fmt.Sprintf("%+v, before %+v", got.A, want.A)
	}
	return ""
}

// FuzzOptDecodesAsBefore: an optional string, whole number, boolean or
// amount decodes as encoding/json decoded it, values and refusals alike.
func FuzzOptDecodesAsBefore(f *testing.F) {
	for _, v := range []string{`"abc"`, `"a\"b"`, `"\u00e9t\u00e9"`, "\"tab\there\"", "\"\xff\"", `""`, `12`, `-5`, `0`, `-0`, `1.5`, `1e3`,
		`99999999999999999999`, `-9223372036854775808`, `true`, `false`, `"12.50"`, `12.5`, `12.505`, `{}`, `[]`, `[1]`, `null`} {
		f.Add([]byte(`{"a": ` + v + `}`))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for name, diff := range map[string]string{"string": sameDecoding[string](body), "int64": sameDecoding[int64](body),
			"int": sameDecoding[int](body), "bool": sameDecoding[bool](body), "Money": sameDecoding[loyalty.Money](body)} {
			if diff != "" {
				t.Errorf("%s of %s: %s", name, body, diff)
			}
		}
	})
}

// oldItem is a basket line as it decoded before plainItems: the reference
// FuzzItemsDecodeAsBefore holds the lines to.
type oldItem struct {
	SKU      oldOpt[string]        `json:"sku"`
	Quantity oldOpt[int64]         `json:"quantity"`
	Price    oldOpt[loyalty.Money] `json:"price"`
	Discount oldOpt[loyalty.Money] `json:"discount"`
}

// FuzzItemsDecodeAsBefore: a basket's lines decode as encoding/json
// decoded them, values and refusals alike.
func FuzzItemsDecodeAsBefore(f *testing.F) {
	for _, v := range []string{`[]`, ` [ ] `, `[{}]`, `[{"sku":"A","quantity":2,"price":3.50,"discount":0.30}]`,
		`[{"sku":"A"},{"sku":"B","price":1}]`, "[ {\"sku\" : \"A\" ,\n\"price\":\t1.2 } , {\"quantity\":null} ]",
		`[{"SKU":"A"}]`, `[{"sku":"A","sku":"B"}]`, `[{"sku":null,"sku":"B"}]`, `[{"s\u006bu":"A"}]`, `[{"sku":"a\"b"}]`,
		`[{"sku":1}]`, `[{"price":"1.00"}]`, `[{"price":1.005}]`, `[{"quantity":1.5}]`, `[{"quantity":-3}]`,
		`[{"name":"x","sku":"A"}]`, `[{"sku":{"a":1}}]`, `[{"sku":["A"]}]`, `[null]`, `[1]`, `["A"]`, `[[]]`, `null`, `{}`, `"A"`,
		`[{"quantity":99999999999999999999}]`, `[{"sku":"\u00e9"}]`, "[{\"sku\":\"\xff\"}]", `[{"price":-0.5}]`} {
		f.Add([]byte(`{"items": ` + v + `}`))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got struct {
			Items loyalty.Opt[[]loyalty.BasketItemInput] `json:"items"`
		}
		var want struct {
			Items oldOpt[[]oldItem] `json:"items"`
		}
		gerr, werr := json.Unmarshal(body, &got), json.Unmarshal(body, &want)
		switch {
		case (gerr == nil) != (werr == nil):
			t.Fatalf("%s: error %v, before %v", body, gerr, werr)
		case gerr != nil:
			if g, w := gerr.Error(), strings.NewReplacer("loyalty_test.oldOpt", "loyalty.Opt", "loyalty_test.oldItem",
				"loyalty.BasketItemInput").Replace(werr.Error()); g != w {
				t.Fatalf("%s: error %q, before %q", body, g, w)
			}
			return
		}
		if got.Items.Set != want.Items.Set || got.Items.Null != want.Items.Null || (got.Items.V == nil) != (want.Items.V == nil) ||
			len(got.Items.V) != len(want.Items.V) {
			t.Fatalf("%s: %+v, before %+v", body, got.Items, want.Items)
		}
		for i, g := range got.Items.V {
			w := want.Items.V[i]
			if g.SKU != loyalty.Opt[string](w.SKU) || g.Quantity != loyalty.Opt[int64](w.Quantity) ||
				g.Price != loyalty.Opt[loyalty.Money](w.Price) || g.Discount != loyalty.Opt[loyalty.Money](w.Discount) {
				t.Fatalf("%s: line %d %+v, before %+v", body, i, g, w)
			}
		}
	})
}
