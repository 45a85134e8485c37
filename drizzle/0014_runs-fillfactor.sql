-- A run's row is updated on every event of the run (its event counter) and on every lease renewal. On a page
-- with no room, each update is a new row version on another page with an entry in each of the table's eight
-- indexes, and reads walk the old versions: on a store of 10,000 runs a wide run touched 2.2 times the
-- database blocks per step of an empty store, most of it here (decision 030, session 13). Pages kept half
-- empty let the updates stay on their page (HOT). Rows written before this keep their pages until rewritten.
ALTER TABLE "runs" SET (fillfactor = 50);
