-- +goose Up
-- events_number_pending(b) numbers business b's committed, unnumbered
-- events after its last number, in id order, as the sequencer does
-- (event.go), and returns how many; the reward batch (batch_sql.go)
-- calls it before numbering its own events, so that a customer's events
-- keep the order of their changes. It takes the business's
-- event_sequences row first (the sequencer's lock) and leaves last_seq to
-- its caller, which moves it past these and its own. Each of its
-- statements takes its own snapshot: called after the batch has taken
-- its customers, it sees a change that committed while the batch waited
-- for one of them.
--
-- The unnumbered events are found by walking their partial index
-- (events_pending) in id order, one row at a time: a condition on seq
-- alone is planned, with statistics taken while many events were
-- unnumbered (autovacuum off, a seeding just written), as a scan of the
-- table or of the whole index, or as a bitmap scan, which revisits at
-- every call each index entry left by events numbered since the last
-- vacuum; an index scan marks those dead as it meets them.
-- +goose StatementBegin
CREATE FUNCTION events_number_pending(b text) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	last bigint;
	first text;
	n bigint;
BEGIN
	SELECT s.last_seq INTO last FROM event_sequences s WHERE s.business_id = b FOR NO KEY UPDATE;
	SELECT f.id INTO first FROM events f WHERE f.business_id = b AND f.seq IS NULL ORDER BY f.id LIMIT 1;
	IF first IS NULL THEN
		RETURN 0;
	END IF;
	WITH RECURSIVE pr(id) AS (
		SELECT first COLLATE "C"
		UNION ALL
		SELECT (SELECT f.id FROM events f WHERE f.business_id = b AND f.seq IS NULL AND f.id > pr.id ORDER BY f.id LIMIT 1)
		FROM pr WHERE pr.id IS NOT NULL
	)
	UPDATE events e SET seq = last + r.rn
	FROM (SELECT pr.id, row_number() OVER (ORDER BY pr.id) AS rn FROM pr WHERE pr.id IS NOT NULL) AS r
	WHERE e.business_id = b AND e.id = r.id AND e.seq IS NULL;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION events_number_pending(text);
