"""The desk's web app: its frame, staff login in front of every page, and the pages
(dashboard, usage, booking API, incidents)."""
