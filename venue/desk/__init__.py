"""`mjtable venue`: the venue's box process, its dashboard and its small HTTP API.

The process and its config are here (cli, admin, serve, config, sections, demo); the
back office's SQLite tables are office.py. Then by job: tables/ (the broker link, the
fleet, the hand records), accounts/ (staff, sessions, integrators' keys), faults/
(incidents and paging) and web/ (the app, login and every page)."""
