-- +goose Up
-- Ledger entries take the reference platform's transaction type codes and
-- names (loyalty/transaction_type.go; docs/transaction-types.md lists old
-- and new). Each entry keeps its meaning; where one old code held two of
-- the reference's kinds, what the entry did decides:
--   5 (redeem): 43 when it redeemed catalog items, else 5;
--   7 (adjust): 82 when it took points, else 80;
--   8, 9 (coupon issued, claimed): 91, 92 for a convertible coupon, else 74, 75;
--   13 (referral): 76 for the referee's payout, 77 for the referrer's.
-- No entry links to its referral, so the referee's payout is the first
-- referral entry of a customer whose own referral was paid that is either
-- the reward_referral intent's (it carries the purchase's amount; the
-- referrer's never does) or dated with one of the customer's own rewards
-- (the automatic payout is dated with the reward that earned it).
-- Conditions read intent, amount, points and dates, never type_code, so
-- the statement does not see its own changes on either engine.
UPDATE transactions SET type_code = CASE type_code
    WHEN 5 THEN CASE WHEN EXISTS (SELECT 1 FROM transaction_items i WHERE i.transaction_id = transactions.id)
        THEN 43 ELSE 5 END
    WHEN 6 THEN 64
    WHEN 7 THEN CASE WHEN transactions.points < 0 THEN 82 ELSE 80 END
    WHEN 8 THEN CASE WHEN EXISTS (SELECT 1 FROM coupons c WHERE c.id = transactions.coupon_id AND c.coupon_type_id IN (91, 92))
        THEN 91 ELSE 74 END
    WHEN 9 THEN CASE WHEN EXISTS (SELECT 1 FROM coupons c WHERE c.id = transactions.coupon_id AND c.coupon_type_id IN (91, 92))
        THEN 92 ELSE 75 END
    WHEN 10 THEN 85
    WHEN 11 THEN 88
    WHEN 12 THEN 1012
    WHEN 13 THEN CASE WHEN EXISTS (SELECT 1 FROM referrals r WHERE r.business_id = transactions.business_id
                AND r.referee_id = transactions.customer_id AND r.paid_at IS NOT NULL)
            AND transactions.id = (SELECT MIN(s.id) FROM transactions s
                WHERE s.business_id = transactions.business_id AND s.customer_id = transactions.customer_id
                AND s.intent = 'reward_referral'
                AND (s.amount > 0 OR EXISTS (SELECT 1 FROM transactions w WHERE w.business_id = s.business_id
                    AND w.customer_id = s.customer_id AND w.intent = 'reward' AND w.created_at = s.created_at)))
        THEN 76 ELSE 77 END
    WHEN 14 THEN 33
    WHEN 15 THEN 44
    WHEN 16 THEN 107
    WHEN 17 THEN 1017
    WHEN 18 THEN 1018
    END
WHERE type_code BETWEEN 5 AND 18;
-- No entry had one of these codes before: each row here was just moved.
UPDATE transactions SET name = CASE type_code
    WHEN 5 THEN 'Redemption'
    WHEN 33 THEN 'Signup Bonus'
    WHEN 43 THEN 'Redemption - Catalog'
    WHEN 44 THEN 'Transaction Canceled - Clerk'
    WHEN 64 THEN 'Refund - Points'
    WHEN 74 THEN 'Coupon Tagged'
    WHEN 75 THEN 'Coupon claimed'
    WHEN 76 THEN 'Referred rewarded'
    WHEN 77 THEN 'Referrer rewarded'
    WHEN 80 THEN 'Adjust Increase Points'
    WHEN 82 THEN 'Adjust Decrease Points'
    WHEN 85 THEN 'Giftcard Purchase - At Store'
    WHEN 88 THEN 'Giftcard Payment'
    WHEN 91 THEN 'Convertible Coupon created'
    WHEN 92 THEN 'Convertible Coupon redeemed'
    WHEN 107 THEN 'Refund - Redeemed Points'
    WHEN 1012 THEN 'Store Credit'
    WHEN 1017 THEN 'Points Activated'
    WHEN 1018 THEN 'Points Expired'
    END
WHERE type_code IN (5, 33, 43, 44, 64, 74, 75, 76, 77, 80, 82, 85, 88, 91, 92, 107, 1012, 1017, 1018);

-- +goose Down
-- The codes and names before the reference's: one old code per intent
-- (a catalog redemption was 5 "Redemption", one of points 5 "Redeem").
UPDATE transactions SET
    type_code = CASE type_code
        WHEN 43 THEN 5
        WHEN 64 THEN 6
        WHEN 80 THEN 7 WHEN 82 THEN 7
        WHEN 74 THEN 8 WHEN 91 THEN 8
        WHEN 75 THEN 9 WHEN 92 THEN 9
        WHEN 85 THEN 10
        WHEN 88 THEN 11
        WHEN 1012 THEN 12
        WHEN 76 THEN 13 WHEN 77 THEN 13
        WHEN 33 THEN 14
        WHEN 44 THEN 15
        WHEN 107 THEN 16
        WHEN 1017 THEN 17
        WHEN 1018 THEN 18
        ELSE type_code END,
    name = CASE type_code
        WHEN 5 THEN 'Redeem'
        WHEN 43 THEN 'Redemption'
        WHEN 64 THEN 'Return'
        WHEN 80 THEN 'Adjustment' WHEN 82 THEN 'Adjustment'
        WHEN 74 THEN 'Get Coupon' WHEN 91 THEN 'Get Coupon'
        WHEN 75 THEN 'Claim Coupon' WHEN 92 THEN 'Claim Coupon'
        WHEN 85 THEN 'Gift Card Purchase'
        WHEN 88 THEN 'Gift Card Payment'
        WHEN 1012 THEN 'Store Credit'
        WHEN 76 THEN 'Referral Reward' WHEN 77 THEN 'Referral Reward'
        WHEN 33 THEN 'Welcome Points'
        WHEN 44 THEN 'Cancellation'
        WHEN 107 THEN 'Refund Redeemed Points'
        WHEN 1017 THEN 'Points Activated'
        WHEN 1018 THEN 'Points Expired'
        ELSE name END
WHERE type_code IN (5, 33, 43, 44, 64, 74, 75, 76, 77, 80, 82, 85, 88, 91, 92, 107, 1012, 1017, 1018);
