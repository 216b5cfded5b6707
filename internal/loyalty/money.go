package loyalty

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// Money is an exact amount of money in minor units (cents). It is written to
// JSON as a number with two decimals and read from a JSON number with at most
// two decimals, never through a float.
type Money int64

// MaxMoney bounds amounts so that sums of many of them never overflow.
const MaxMoney Money = 1_000_000_000_00

// String formats m with two decimals, e.g. "12.50".
func (m Money) String() string {
	neg := m < 0
	if neg {
		m = -m
	}
	s := strconv.FormatInt(int64(m/100), 10) + "." + twoDigits(int64(m%100))
	if neg {
		return "-" + s
	}
	return s
}

func twoDigits(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// MarshalJSON writes m as a JSON number with two decimals.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.String()), nil }

// ErrMoneyFormat is returned for a number that is not an amount of money.
var ErrMoneyFormat = errors.New("must be a number with at most 2 decimals")

// ParseMoney parses a decimal string such as "12", "12.5" or "-0.25" exactly.
func ParseMoney(s string) (Money, error) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 12 || (hasDot && (len(frac) == 0 || len(frac) > 2)) {
		return 0, ErrMoneyFormat
	}
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, ErrMoneyFormat
			}
		}
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac, 10, 64)
		if len(frac) == 1 {
			f *= 10
		}
	}
	m := Money(w*100 + f)
	if m > MaxMoney {
		return 0, ErrMoneyFormat
	}
	if neg {
		m = -m
	}
	return m, nil
}

// UnmarshalJSON reads a JSON number (not a string) with at most two decimals.
func (m *Money) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	v, err := ParseMoney(s)
	if err != nil {
		// A type error lets the JSON decoder name the field.
		return &json.UnmarshalTypeError{Value: "number " + s, Type: reflect.TypeFor[Money]()}
	}
	*m = v
	return nil
}
