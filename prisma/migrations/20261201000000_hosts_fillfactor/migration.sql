-- Ingest writes every host's last seen time and seq in one UPDATE every 30 s. With full pages each new row
-- version lands on another page and all four indexes of `hosts` get a new entry; with room left on the page the
-- update is HOT (heap-only) and touches no index. Applies to pages written from now on.
ALTER TABLE "hosts" SET (fillfactor = 50);
