-- Display names (issue 13): what each seat's player typed, shown to everyone and trusted for
-- nothing. At most 24 characters, no control characters; NULL when the player gave none.
ALTER TABLE seats ADD COLUMN name TEXT;
