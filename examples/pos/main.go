// Command pos is what a point-of-sale integration does with the Go SDK:
// sign in as the business owner (the password grant), find or create the
// customer, reward a purchase with the order number as Idempotency-Key
// (so that running it again for the same order rewards once), and list
// the customer's transactions with the paging iterator.
//
//	go run ./examples/pos -url http://127.0.0.1:8080 -key "$KEY" \
//	  -client-id "$CLIENT" -client-secret "$SECRET" \
//	  -owner-email owner@cafe.example -owner-password change-me-now \
//	  -customer carol@example.com -order order-2001 -amount 18.40
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/loyalty/loyalty/client"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.url, "url", "http://127.0.0.1:8080", "the service's root URL")
	flag.StringVar(&cfg.key, "key", "", "the business's Application Key")
	flag.StringVar(&cfg.clientID, "client-id", "", "the POS app's client id (a password-grant business-API app)")
	flag.StringVar(&cfg.clientSecret, "client-secret", "", "the POS app's client secret")
	flag.StringVar(&cfg.ownerEmail, "owner-email", "", "the business owner's e-mail")
	flag.StringVar(&cfg.ownerPassword, "owner-password", os.Getenv("LOYALTY_OWNER_PASSWORD"), "the owner's password (default $LOYALTY_OWNER_PASSWORD)")
	flag.StringVar(&cfg.customer, "customer", "", "the customer's e-mail")
	flag.StringVar(&cfg.order, "order", "", "the order number: the reward's Idempotency-Key")
	flag.StringVar(&cfg.amount, "amount", "", "the amount spent, e.g. 18.40")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "pos:", err)
		os.Exit(1)
	}
}

type config struct {
	url, key, clientID, clientSecret, ownerEmail, ownerPassword string
	customer, order, amount                                     string
}

func run(ctx context.Context, cfg config) error {
	oauth := &client.OAuth{BaseURL: cfg.url, ApplicationKey: cfg.key, ClientID: cfg.clientID, ClientSecret: cfg.clientSecret}
	tokens, err := oauth.Password(ctx, cfg.ownerEmail, cfg.ownerPassword, client.ScopeAdmin)
	if err != nil {
		return err
	}
	api, err := client.New(cfg.url, cfg.key, tokens)
	if err != nil {
		return err
	}
	id, err := findOrCreate(ctx, api, cfg.customer)
	if err != nil {
		return err
	}
	fmt.Printf("customer %s (%s)\n", id, cfg.customer)

	key := "pos-" + cfg.order
	r, err := api.CreateTransactionWithResponse(ctx, &client.CreateTransactionParams{IdempotencyKey: &key}, client.TransactionCreate{
		Intent:             ptr(client.TransactionCreateIntentReward),
		Amount:             ptr(json.Number(cfg.amount)),
		Customer:           &client.TransactionCreate_Customer{Id: &id},
		TransactionDetails: &client.TransactionDetails{ExternalOrderId: &cfg.order},
	})
	if err != nil {
		return err
	}
	if r.JSON200 == nil {
		return client.ResponseError(r.HTTPResponse, r.Body)
	}
	tx := r.JSON200.Data
	fmt.Printf("order %s: transaction %d, %d points", cfg.order, tx.Id, tx.Points)
	if tx.Balance != nil {
		fmt.Printf(", balance %d points", tx.Balance.Points)
	}
	fmt.Println()

	fmt.Printf("transactions of %s:\n", cfg.customer)
	for t, err := range api.AllCustomerTransactions(ctx, id, client.ListCustomerTransactionsParams{}) {
		if err != nil {
			return err
		}
		fmt.Printf("  %d %s %s amount %s, %d points\n", t.Id, t.CreatedAt.Format(time.RFC3339), t.Intent, t.Amount, t.Points)
	}
	return nil
}

// findOrCreate returns the id of the customer with e-mail email, creating
// the customer when the business has none.
func findOrCreate(ctx context.Context, api *client.ClientWithResponses, email string) (string, error) {
	for c, err := range api.AllCustomers(ctx, client.ListCustomersParams{Email: ptr("eq|" + email)}) {
		if err != nil {
			return "", err
		}
		return c.Id, nil
	}
	r, err := api.CreateCustomerWithResponse(ctx, client.CustomerCreate{Email: &email})
	if err != nil {
		return "", err
	}
	if r.JSON200 == nil {
		return "", client.ResponseError(r.HTTPResponse, r.Body)
	}
	return r.JSON200.Data.Id, nil
}

func ptr[T any](v T) *T { return &v }
