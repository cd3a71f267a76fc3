-- What a proposal changes, as it stood when proposed: the id of the last significant event that
-- changed it ('none' when nothing has yet). An approval is refused when it no longer matches, so
-- an older proposal cannot silently undo a newer change. Null for proposals from before.
ALTER TABLE proposals ADD COLUMN subject_version TEXT;
