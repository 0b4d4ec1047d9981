"""The benchmark behind `make bench`: supportdesk beside a hand-written floor and PostGraphile.

Run it with the project's virtualenv: `python -m bench` (or `make bench`, `make bench-quick`).
The modules: `seed` fills a database fast with bulk SQL, `scenarios` names the requests,
`servers` starts the three servers as a user would, `load` drives them with wrk, `report`
prints the table and writes the JSON and the chart, `profile` records py-spy profiles.
"""
