package loyalty_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestTransactionTypesDocumented: docs/transaction-types.md, which clients
// read to map codes, lists every type code the service writes with its
// name, and each code the reference has no row for is above 1000.
func TestTransactionTypesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/transaction-types.md")
	if err != nil {
		t.Fatal(err)
	}
	reference := map[int]bool{4: true, 5: true, 33: true, 43: true, 44: true, 58: true, 59: true, 64: true, 74: true, 75: true, 76: true,
		77: true, 80: true, 82: true, 85: true, 88: true, 91: true, 92: true, 107: true}
	for _, code := range loyalty.TypeCodes() {
		name := loyalty.TypeName(code)
		if row := fmt.Sprintf("| %d | %s |", code, name); name == "" || !strings.Contains(string(doc), row) {
			t.Errorf("docs/transaction-types.md has no row %q", row)
		}
		if !reference[code] && code <= 1000 {
			t.Errorf("code %d (%s) is not the reference's and not above 1000", code, name)
		}
	}
}
