package loyalty

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CheckText refuses client text that is not UTF-8, which would be stored
// altered (or refused by PostgreSQL), or that holds a NUL character, which
// PostgreSQL refuses in text and SQLite keeps. what names the text in the
// message: "query parameter \"email\"", "X-Application-Key header".
func CheckText(what, s string) error {
	if !utf8.ValidString(s) {
		return Errorf(EBadRequest, "The %s is not valid UTF-8.", what)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return Errorf(EBadRequest, "The %s may not contain NUL characters.", what)
	}
	return nil
}

// CheckValues applies CheckText to every name and value of a query or a
// form, in name order so the message does not vary between tries.
func CheckValues(what string, vs map[string][]string) error {
	names := make([]string, 0, len(vs))
	for k := range vs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := CheckText(what+" name", k); err != nil {
			return err
		}
		for _, v := range vs[k] {
			if err := CheckText(what+" "+strconv.Quote(k), v); err != nil {
				return err
			}
		}
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

func itoa64(n int64) string { return itoa(int(n)) }
