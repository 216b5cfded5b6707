package web

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The live preview of an earning rule: a sample basket (an amount, or a
// few lines of SKU, quantity and price) evaluated with the rule as the
// form stands, saved or not. A script posts the form as it changes and
// puts the answer in place; without scripts, the form's Preview button
// posts it and the page comes back with the answer.

// sampleLines is how many lines the sample basket offers.
const sampleLines = 3

// sampleBasket is the sample as the form shows it.
type sampleBasket struct {
	Amount, Channel, Branch, At, Customer string
	Lines                                 []console.SaleLine
	Channels, Branches                    []option
}

// newSample reads the sample of a form's values (one a line for the
// lines' fields).
func newSample(form map[string]string, sources map[string][]option) *sampleBasket {
	sb := &sampleBasket{Amount: form["sample_amount"], Channel: form["sample_channel"], Branch: form["sample_branch"],
		At: form["sample_at"], Customer: form["sample_customer"], Channels: channelOptions, Branches: sources["branches"]}
	skus, qtys, prices := strings.Split(form["sample_sku"], "\n"), strings.Split(form["sample_qty"], "\n"), strings.Split(form["sample_price"], "\n")
	at := func(list []string, i int) string {
		if i < len(list) {
			return list[i]
		}
		return ""
	}
	for i := range sampleLines {
		sb.Lines = append(sb.Lines, console.SaleLine{SKU: at(skus, i), Quantity: at(qtys, i), Price: at(prices, i)})
	}
	return sb
}

// rulePreview is what the sample earns with the rule, as the page shows it.
type rulePreview struct {
	Business   loyalty.Business
	Points     int64
	Eligible   loyalty.Money
	Applied    []previewOutcome
	NotApplied []previewOutcome
	Unknown    []string
	// Gifts are the stamps and coupons the sale would give, in words.
	Gifts []string
	// Problems are why nothing was evaluated: the sample's or the rule's
	// messages.
	Problems []string
	// Empty: no sample was given yet.
	Empty bool
}

// previewOutcome is one rule of the evaluation; This marks the rule edited.
type previewOutcome struct {
	loyalty.Outcome
	This bool
}

// previewRule evaluates the posted rule form on its sample: the rule's
// refusals are returned as EInvalid (shown beside its fields); the
// sample's are in the preview's Problems.
func previewRule(r *http.Request, s *Server, a loyalty.Actor, b loyalty.Business, body []byte) (*rulePreview, error) {
	f := r.PostForm
	p := &rulePreview{Business: b}
	in, err := decodeAs[loyalty.EarningRuleInput](ruleBody(body))
	if err != nil {
		return nil, err
	}
	var lines []console.SaleLine
	skus, qtys, prices := f["sample_sku"], f["sample_qty"], f["sample_price"]
	for i, sku := range skus {
		if strings.TrimSpace(sku) == "" {
			continue
		}
		l := console.SaleLine{SKU: sku}
		if i < len(qtys) {
			l.Quantity = qtys[i]
		}
		if i < len(prices) {
			l.Price = prices[i]
		}
		lines = append(lines, l)
	}
	basket := loyalty.EvaluateInput{}
	if amount := strings.TrimSpace(f.Get("sample_amount")); amount != "" {
		m, err := loyalty.ParseMoney(amount)
		if err != nil || m <= 0 {
			p.Problems = append(p.Problems, "Enter the sample's amount as an amount such as 12.50.")
		}
		basket.Amount = loyalty.Some(m)
	}
	if len(lines) == 0 && !basket.Amount.Set {
		p.Empty = true
		return p, nil
	}
	if ch := f.Get("sample_channel"); ch != "" {
		basket.Channel = loyalty.Some(ch)
	}
	if br := f.Get("sample_branch"); br != "" {
		basket.Branch = loyalty.Some(loyalty.StringRef{ID: loyalty.Some(br)})
	}
	if at := strings.TrimSpace(f.Get("sample_at")); at != "" {
		loc, err := s.location(r, a)
		if err != nil {
			return nil, err
		}
		t, err := time.ParseInLocation("2006-01-02T15:04", at, loc)
		if err != nil {
			p.Problems = append(p.Problems, "Enter the sample's time as a date and time.")
		}
		basket.At = loyalty.Some(loyalty.FormatTime(t))
	}
	if code := strings.TrimSpace(f.Get("sample_customer")); code != "" {
		m, err := s.Desk.Find(r.Context(), a, code)
		switch {
		case loyalty.ErrorCode(err) == loyalty.EInvalid:
			p.Problems = append(p.Problems, "The sample's customer: "+loyalty.ErrorMessage(err))
		case err != nil:
			return nil, err
		case len(m.Customers) != 1:
			p.Problems = append(p.Problems, "No one customer has the e-mail, phone or code "+code+".")
		default:
			basket.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(m.Customers[0].ID)})
		}
	}
	if len(p.Problems) > 0 {
		return p, nil
	}
	id := r.PathValue("id")
	ev, err := s.Program.PreviewRule(r.Context(), a, id, in, lines, basket)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		ruleErrs := map[string][]string{}
		for name, msgs := range e.Fields {
			if sampleField(name) {
				p.Problems = append(p.Problems, sampleMessage(name, msgs))
			} else {
				ruleErrs[name] = msgs
			}
		}
		if len(ruleErrs) > 0 {
			return p, &loyalty.Error{Code: loyalty.EInvalid, Message: e.Message, Fields: ruleErrs}
		}
		return p, nil
	} else if loyalty.ErrorCode(err) == loyalty.ENotFound && basket.Branch.Set {
		p.Problems = append(p.Problems, "The sample's branch does not exist.")
		return p, nil
	} else if err != nil {
		return nil, err
	}
	this := "rule-0"
	if id != "" {
		this = "rule-" + id
	}
	p.Points, p.Eligible, p.Unknown = ev.Points, ev.EligibleAmount, ev.UnknownSKUs
	for _, o := range ev.Applied {
		p.Applied = append(p.Applied, previewOutcome{Outcome: o, This: o.RuleID == this})
	}
	for _, o := range ev.NotApplied {
		p.NotApplied = append(p.NotApplied, previewOutcome{Outcome: o, This: o.RuleID == this})
	}
	if len(ev.Stamps) > 0 || len(ev.Coupons) > 0 {
		names, err := giftNames(r.Context(), s, b)
		if err != nil {
			return nil, err
		}
		p.Gifts = giftWords(ev, names)
	}
	return p, nil
}

// sampleField reports whether an evaluation's field is the sample's.
func sampleField(name string) bool {
	for _, p := range []string{"amount", "items", "channel", "branch", "at", "tax", "shipping", "customer"} {
		if name == p || strings.HasPrefix(name, p+".") {
			return true
		}
	}
	return false
}

// sampleMessage names the sample's line a message is about.
func sampleMessage(name string, msgs []string) string {
	msg := strings.Join(msgs, " ")
	if rest, ok := strings.CutPrefix(name, "items."); ok {
		if n, err := strconv.Atoi(strings.SplitN(rest, ".", 2)[0]); err == nil {
			return "Line " + strconv.Itoa(n+1) + ": " + msg
		}
	}
	return msg
}

// previewRule answers a rule form's Preview: the fragment the script puts
// in place, or the whole form again with the answer (and the rule's
// refusals beside its fields).
func (s *Server) previewRule(w http.ResponseWriter, r *http.Request, a loyalty.Actor, b loyalty.Business, k *setupKind,
	form map[string]string, body []byte, bad map[string][]string) error {
	var p *rulePreview
	var err error
	if len(bad) == 0 {
		p, err = k.preview(r, s, a, b, body)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			bad = e.Fields
		} else if err != nil {
			return err
		}
	}
	if p == nil {
		p = &rulePreview{Business: b}
	}
	fields := k.fieldsOf(form)
	if len(bad) > 0 {
		p.Problems = append(p.Problems, "The rule cannot be evaluated as it stands:")
		for name, msgs := range errorsFor(bad, fields) {
			label := name
			for _, fd := range fields {
				if fd.Name == name && fd.Label != "" {
					label = fd.Label
				}
			}
			p.Problems = append(p.Problems, label+": "+strings.Join(msgs, " "))
		}
	}
	if r.PostForm.Get("fragment") != "" {
		var buf bytes.Buffer
		if err := s.pages["setup_form"].ExecuteTemplate(&buf, "rule-preview", p); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(buf.Bytes())
		return nil
	}
	return s.renderSetup(w, r, a, b, k, http.StatusOK, form, nil, bad, "", p)
}

// money is an amount in the preview's business's currency.
func (p *rulePreview) Money(m loyalty.Money) string { return format.Money(m, p.Business) }

// giftWords says what stamps and coupons an evaluation gives; names are
// what giftNames returns.
func giftWords(ev loyalty.Evaluation, names map[string]string) []string {
	var out []string
	for _, cs := range ev.Stamps {
		n := "+1 stamp"
		if cs.Stamps != 1 {
			n = "+" + strconv.FormatInt(cs.Stamps, 10) + " stamps"
		}
		out = append(out, cs.Card.Name+": "+n)
	}
	for _, c := range ev.Coupons {
		out = append(out, "A coupon: "+cmp(names["offer-"+intText(c.OfferID)], "offer #"+intText(c.OfferID)))
	}
	return out
}
