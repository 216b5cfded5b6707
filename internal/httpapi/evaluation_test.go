package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// FuzzEvaluationAnswerAsEncoded: the dry run's hand-written answer is, byte
// for byte, what encoding/json writes for evaluationOf (as writeJSON
// would), whatever the names, reasons and SKUs hold and whichever lists
// are empty or absent.
func FuzzEvaluationAnswerAsEncoded(f *testing.F) {
	f.Add("Double points Tuesdays", "the basket's Drinks", "SKU-1", int64(120), int64(1250), uint8(0xff))
	f.Add("<b>Fish & chips</b>", "a \"quoted\" reason\n", "caf\u00e9 \u2028", int64(-5), int64(-1), uint8(0))
	f.Add("Fish & chips", "over 5 > 3", "a<b", int64(1), int64(99), uint8(0x07))
	f.Add("\xff\xfe bad UTF-8", "tab\there \\ back", "\x00\x1f", int64(0), int64(0), uint8(0x55))
	f.Fuzz(func(t *testing.T, name, reason, sku string, points, amount int64, shape uint8) {
		ev := loyalty.Evaluation{Points: points, EligibleAmount: loyalty.Money(amount)}
		if shape&1 != 0 {
			ev.Applied = []loyalty.Outcome{{RuleID: "rule-1", Name: name, Points: points, Reason: reason},
				{RuleID: "offer-" + sku, Name: reason, Points: 0, Reason: ""}}
		}
		if shape&2 != 0 {
			ev.NotApplied = []loyalty.Outcome{{RuleID: sku, Name: name, Reason: reason}}
		}
		if shape&4 != 0 {
			ev.UnknownSKUs = []string{sku, name}
		} else if shape&8 != 0 {
			ev.UnknownSKUs = []string{}
		}
		if shape&16 != 0 {
			ev.Stamps = []loyalty.CardStamps{{Card: loyalty.PunchCard{ID: 7, Name: name}, Stamps: points}}
		}
		if shape&32 != 0 {
			ev.Coupons = []loyalty.EvaluatedCoupon{{OfferID: 3, RuleID: amount}, {OfferID: 4, PunchCardID: 9}}
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(dataJSON[evaluationJSON]{Data: evaluationOf(ev)}); err != nil {
			t.Fatal(err)
		}
		if got := appendEvaluation(nil, ev); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("appendEvaluation wrote\n%s\nencoding/json writes\n%s", got, want.Bytes())
		}
	})
}
