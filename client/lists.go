package client

import (
	"context"
	"iter"
)

// Iterators over the list endpoints: each walks every page of the list
// with the filters of params (params.Page, when set, is where it starts;
// params.PerPage defaults to 100).

// AllCustomers iterates over the business's customers (GET /customers), page after page.
func (c *ClientWithResponses) AllCustomers(ctx context.Context, params ListCustomersParams) iter.Seq2[Customer, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]Customer, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListCustomersWithResponse(ctx, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Cursor.Next != nil, nil
	})
}

// AllTransactions iterates over the business's transactions (GET /transactions), page after page.
func (c *ClientWithResponses) AllTransactions(ctx context.Context, params ListTransactionsParams) iter.Seq2[Transaction, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]Transaction, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListTransactionsWithResponse(ctx, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Cursor.Next != nil, nil
	})
}

// AllBranches iterates over the business's branches (GET /branches), page after page.
func (c *ClientWithResponses) AllBranches(ctx context.Context, params ListBranchesParams) iter.Seq2[Branch, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]Branch, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListBranchesWithResponse(ctx, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Cursor.Next != nil, nil
	})
}

// AllOffers iterates over the business's offers (GET /offers), page after page.
func (c *ClientWithResponses) AllOffers(ctx context.Context, params ListOffersParams) iter.Seq2[OfferDetail, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]OfferDetail, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListOffersWithResponse(ctx, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Cursor.Next != nil, nil
	})
}

// AllRewards iterates over the business's rewards (GET /rewards), page after page.
func (c *ClientWithResponses) AllRewards(ctx context.Context, params ListRewardsParams) iter.Seq2[RewardDetail, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]RewardDetail, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListRewardsWithResponse(ctx, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Cursor.Next != nil, nil
	})
}

// AllGiftcards iterates over the business's gift cards (GET /giftcards), page after page.
func (c *ClientWithResponses) AllGiftcards(ctx context.Context, params ListGiftcardsParams) iter.Seq2[Giftcard, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]Giftcard, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListGiftcardsWithResponse(ctx, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Cursor.Next != nil, nil
	})
}

// AllTiers iterates over the business's tier programs (GET /tiers), page after page.
func (c *ClientWithResponses) AllTiers(ctx context.Context, params ListTiersParams) iter.Seq2[Tier, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]Tier, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListTiersWithResponse(ctx, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Cursor.Next != nil, nil
	})
}

// AllReferralPrograms iterates over the business's referral programs (GET /referral-programs), page after page.
func (c *ClientWithResponses) AllReferralPrograms(ctx context.Context, params ListReferralProgramsParams) iter.Seq2[ReferralProgram, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]ReferralProgram, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListReferralProgramsWithResponse(ctx, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Cursor.Next != nil, nil
	})
}

// AllCustomerTransactions iterates over a customer's transactions (GET /customers/{id}/transactions), page after page.
func (c *ClientWithResponses) AllCustomerTransactions(ctx context.Context, id CustomerId, params ListCustomerTransactionsParams) iter.Seq2[Transaction, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]Transaction, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListCustomerTransactionsWithResponse(ctx, id, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Links.Next != nil, nil
	})
}

// AllCustomerOffers iterates over the offers a customer sees (GET /customers/{id}/offers), page after page.
func (c *ClientWithResponses) AllCustomerOffers(ctx context.Context, id CustomerId, params ListCustomerOffersParams) iter.Seq2[CustomerOffer, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]CustomerOffer, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListCustomerOffersWithResponse(ctx, id, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Links.Next != nil, nil
	})
}

// AllCustomerRewards iterates over the rewards a customer sees (GET /customers/{id}/rewards), page after page.
func (c *ClientWithResponses) AllCustomerRewards(ctx context.Context, id CustomerId, params ListCustomerRewardsParams) iter.Seq2[Reward, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]Reward, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListCustomerRewardsWithResponse(ctx, id, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Links.Next != nil, nil
	})
}

// AllAvailableCoupons iterates over a customer's available coupons (GET /customers/{id}/available-coupons), page after page.
func (c *ClientWithResponses) AllAvailableCoupons(ctx context.Context, id CustomerId, params ListAvailableCouponsParams) iter.Seq2[Coupon, error] {
	return Pages(ctx, firstPage(params.Page), func(ctx context.Context, page int) ([]Coupon, bool, error) {
		params.Page, params.PerPage = &page, fullPage(params.PerPage)
		r, err := c.ListAvailableCouponsWithResponse(ctx, id, &params)
		if err != nil {
			return nil, false, err
		}
		if r.JSON200 == nil {
			return nil, false, ResponseError(r.HTTPResponse, r.Body)
		}
		return r.JSON200.Data, r.JSON200.Links.Next != nil, nil
	})
}
