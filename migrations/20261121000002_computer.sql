-- Play against the computer (fugitive-ai): JSON {"bot": null | "random" | "easy" | "hard",
-- "notepad_assist": bool}; NULL for rooms made before this column existed (no computer).
ALTER TABLE rooms ADD COLUMN computer TEXT;
