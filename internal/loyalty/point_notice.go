package loyalty

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// noticeLocal is what a notice needs of its business.
type noticeLocal struct {
	name string
	loc  *time.Location
}

// NotifyDue queues, through the outbox, the expiring-soon messages due at
// at (of one business, or all with ""): one per customer and expiry, with
// the points that expire then and the last day they are usable, in the
// customer's language. A customer who said no is not told (the notice is
// recorded all the same). A notice found after its expiry passed (the
// service was down) is dropped unless late is set, as a sandbox clock
// that jumps sends what would have been sent on the way. It returns how
// many messages it queued.
func NotifyDue(ctx context.Context, st Store, businessID string, at time.Time, batch int, late bool) (int, error) {
	local := map[string]noticeLocal{}
	total := 0
	for {
		keys, err := st.DueNoticeCustomers(ctx, businessID, at, batch)
		if err != nil || len(keys) == 0 {
			return total, err
		}
		for _, k := range keys {
			l, ok := local[k.BusinessID]
			if !ok {
				b, err := st.Business(ctx, k.BusinessID)
				if err != nil {
					return total, err
				}
				rules, err := st.Rules(ctx, b)
				if err != nil {
					return total, err
				}
				l = noticeLocal{name: b.Name, loc: rules.location()}
				local[k.BusinessID] = l
			}
			n, err := notifyCustomer(ctx, st, k, at, late, l)
			if err != nil {
				return total, err
			}
			total += n
		}
		// Each customer's due notices are done now: the next batch is new.
	}
}

// notifyCustomer tells one customer of its lots' expiries whose notice
// time came, in one transaction.
func notifyCustomer(ctx context.Context, st Store, k CustomerKey, at time.Time, late bool, l noticeLocal) (int, error) {
	n := 0
	err := st.WithTx(ctx, func(tx Tx) error {
		n = 0
		lots, wanted, err := tx.NoticeLots(ctx, k, at)
		if err != nil || len(lots) == 0 {
			return err
		}
		points := map[time.Time]int64{}
		var expiries []time.Time
		ids := make([]int64, len(lots))
		for i, lot := range lots {
			ids[i] = lot.ID
			if _, ok := points[lot.ExpiresAt]; !ok {
				expiries = append(expiries, lot.ExpiresAt)
			}
			points[lot.ExpiresAt] += lot.Remaining
		}
		for _, exp := range expiries {
			if points[exp] <= 0 {
				continue
			}
			first, err := tx.RecordNotice(ctx, k, exp)
			if err != nil {
				return err
			}
			if !first || !wanted || (!late && !exp.After(at)) {
				continue
			}
			c, err := tx.CustomerAny(ctx, k.BusinessID, k.CustomerID)
			if err != nil {
				return err
			}
			if c.Deleted {
				continue // who left the program is not written to
			}
			// A notice of the customer's own points: it goes on the
			// channels their notification preferences allow.
			pref, found, err := tx.CurrentConsent(ctx, k.BusinessID, k.CustomerID, ConsentNotifications)
			if err != nil {
				return err
			}
			if !found {
				pref.ContactChannels = defaultChannels(ConsentNotifications)
			}
			m, ok := expiringMessage(l, c, pref.ContactChannels, points[exp], exp)
			if !ok {
				continue
			}
			if err := tx.EnqueueMessage(ctx, &m); err != nil {
				return err
			}
			n++
		}
		return tx.NoticeDone(ctx, ids)
	})
	return n, err
}

// expiringTexts are the expiring-soon message in each language offered:
// subject, the greeting with and without a first name, and the sentence
// (points, program, last day).
var expiringTexts = map[string][5]string{
	"en": {"Your points expire soon", "Hello %s,\n\n", "Hello,\n\n",
		"%s of your %s points expire after %s. Use them before then.\n", "Points: %s\nLast day: %s\n"},
	"fr": {"Vos points expirent bientôt", "Bonjour %s,\n\n", "Bonjour,\n\n",
		"%s de vos points %s expirent après le %s. Utilisez-les d'ici là.\n", "Points : %s\nDernier jour : %s\n"},
	"es": {"Sus puntos caducan pronto", "Hola %s,\n\n", "Hola,\n\n",
		"%s de sus puntos de %s caducan después del %s. Úselos antes.\n", "Puntos: %s\nÚltimo día: %s\n"},
}

// expiringMessage words the notice of points expiring at expires for a
// customer, by e-mail when ch allows it and the customer has an address,
// else by SMS (Reach); false when neither.
func expiringMessage(l noticeLocal, c Customer, ch ContactChannels, points int64, expires time.Time) (Message, bool) {
	kind, to, ok := Reach(ch, c)
	if !ok {
		return Message{}, false
	}
	lang := strings.ToLower(c.Language)
	if len(lang) > 2 {
		lang = lang[:2]
	}
	tx, ok := expiringTexts[lang]
	if !ok {
		tx = expiringTexts["en"]
	}
	// The last day the points are usable, in the business's time zone.
	day := expires.In(l.loc).Add(-time.Second).Format("2006-01-02")
	p := strconv.FormatInt(points, 10)
	var b strings.Builder
	if kind == ContactEmail {
		if c.FirstName != "" {
			b.WriteString(fmt.Sprintf(tx[1], c.FirstName))
		} else {
			b.WriteString(tx[2])
		}
	}
	b.WriteString(fmt.Sprintf(tx[3], p, l.name, day))
	b.WriteString(fmt.Sprintf(tx[4], p, day))
	return messageTo(kind, to, tx[0], b.String()), true
}
