package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// POST /baskets/evaluate: what a basket would earn, and the rules that
// applied to a reward, as the answers list them.

// appliedJSON is a rule of an evaluation.
type appliedJSON struct {
	RuleID string `json:"rule_id"`
	Name   string `json:"name"`
	Points *int64 `json:"points,omitempty"`
	Reason string `json:"reason"`
}

// appliedOf lists the rules that applied, with the points each gave.
func appliedOf(outs []loyalty.Outcome) []appliedJSON {
	applied := make([]appliedJSON, len(outs))
	points := make([]int64, len(outs)) // one allocation for every rule's points
	for i, a := range outs {
		points[i] = a.Points
		applied[i] = appliedJSON{RuleID: a.RuleID, Name: a.Name, Points: &points[i], Reason: a.Reason}
	}
	return applied
}

// evaluateBasket answers what a basket would earn, writing nothing.
func (s *Server) evaluateBasket(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.EvaluateInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	ev, err := rc.svc.Transactions.Evaluate(r.Context(), *rc.business, in) // read with the token, its rules and offers with it
	if err != nil {
		return err
	}
	buf := answerBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	buf.Write(appendEvaluation(buf.AvailableBuffer(), ev))
	writeRaw(w, http.StatusOK, buf.Bytes())
	if buf.Cap() <= maxPooledAnswer {
		answerBuffers.Put(buf)
	}
	return nil
}

// evaluationOf is the answer of POST /baskets/evaluate for ev, as
// appendEvaluation writes it.
func evaluationOf(ev loyalty.Evaluation) evaluationJSON {
	out := evaluationJSON{Points: ev.Points, EligibleAmount: ev.EligibleAmount, Applied: appliedOf(ev.Applied),
		NotApplied: make([]appliedJSON, len(ev.NotApplied)), Coupons: make([]evaluatedCouponJSON, len(ev.Coupons)),
		Stamps: make([]evaluatedStampsJSON, len(ev.Stamps)), UnknownSKUs: ev.UnknownSKUs}
	for i, a := range ev.NotApplied {
		out.NotApplied[i] = appliedJSON{RuleID: a.RuleID, Name: a.Name, Reason: a.Reason}
	}
	for i, cs := range ev.Stamps {
		out.Stamps[i] = evaluatedStampsJSON{PunchCardID: cs.Card.ID, Name: cs.Card.Name, Stamps: cs.Stamps}
	}
	for i, c := range ev.Coupons {
		out.Coupons[i] = evaluatedCouponJSON{OfferID: c.OfferID, PunchCardID: nullID(c.PunchCardID), RuleID: nullID(c.RuleID)}
	}
	return out
}

// appendEvaluation appends to dst {"data": evaluationOf(ev)} and a new
// line, the bytes writeJSON would write, without encoding/json's
// reflection: a dry run's answer lists every rule of the program, and
// the dry run is the checkout's hot read (TestEvaluationAnswerAsEncoded
// holds the two to the same bytes).
func appendEvaluation(dst []byte, ev loyalty.Evaluation) []byte {
	dst = append(dst, `{"data":{"points":`...)
	dst = strconv.AppendInt(dst, ev.Points, 10)
	dst = append(dst, `,"eligible_amount":`...)
	dst = append(dst, ev.EligibleAmount.String()...)
	dst = append(dst, `,"applied":`...)
	dst = appendOutcomes(dst, ev.Applied, true)
	dst = append(dst, `,"not_applied":`...)
	dst = appendOutcomes(dst, ev.NotApplied, false)
	dst = append(dst, `,"coupons":[`...)
	for i, c := range ev.Coupons {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"offer_id":`...)
		dst = strconv.AppendInt(dst, c.OfferID, 10)
		dst = append(dst, `,"punch_card_id":`...)
		dst = appendNullID(dst, c.PunchCardID)
		dst = append(dst, `,"rule_id":`...)
		dst = appendNullID(dst, c.RuleID)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"stamps":[`...)
	for i, cs := range ev.Stamps {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"punch_card_id":`...)
		dst = strconv.AppendInt(dst, cs.Card.ID, 10)
		dst = append(dst, `,"name":`...)
		dst = appendJSONString(dst, cs.Card.Name)
		dst = append(dst, `,"stamps":`...)
		dst = strconv.AppendInt(dst, cs.Stamps, 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"unknown_skus":`...)
	if ev.UnknownSKUs == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, sku := range ev.UnknownSKUs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, sku)
		}
		dst = append(dst, ']')
	}
	return append(dst, "}}\n"...)
}

// appendOutcomes appends a list of appliedJSON: with each rule's points
// (applied) or without (not applied).
func appendOutcomes(dst []byte, outs []loyalty.Outcome, points bool) []byte {
	dst = append(dst, '[')
	for i, o := range outs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"rule_id":`...)
		dst = appendJSONString(dst, o.RuleID)
		dst = append(dst, `,"name":`...)
		dst = appendJSONString(dst, o.Name)
		if points {
			dst = append(dst, `,"points":`...)
			dst = strconv.AppendInt(dst, o.Points, 10)
		}
		dst = append(dst, `,"reason":`...)
		dst = appendJSONString(dst, o.Reason)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendNullID(dst []byte, id int64) []byte {
	if id == 0 {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, id, 10)
}

// appendJSONString appends s quoted as encoding/json quotes it: directly
// when every byte is printable ASCII that needs no escape (HTML's <, >
// and & are escaped too), else by encoding/json.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(dst, q...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// evaluationJSON is the answer of POST /baskets/evaluate.
type evaluationJSON struct {
	Points         int64                 `json:"points"`
	EligibleAmount loyalty.Money         `json:"eligible_amount"`
	Applied        []appliedJSON         `json:"applied"`
	NotApplied     []appliedJSON         `json:"not_applied"`
	Coupons        []evaluatedCouponJSON `json:"coupons"`
	Stamps         []evaluatedStampsJSON `json:"stamps"`
	UnknownSKUs    []string              `json:"unknown_skus"`
}

// evaluatedCouponJSON is a coupon an evaluated basket would issue.
type evaluatedCouponJSON struct {
	OfferID     int64  `json:"offer_id"`
	PunchCardID *int64 `json:"punch_card_id"`
	RuleID      *int64 `json:"rule_id"`
}

// evaluatedStampsJSON is what an evaluated basket would stamp on a card.
type evaluatedStampsJSON struct {
	PunchCardID int64  `json:"punch_card_id"`
	Name        string `json:"name"`
	Stamps      int64  `json:"stamps"`
}
