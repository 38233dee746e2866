"""``kernel view``: a read-only local web app to read runs sample by sample.

``server.py`` holds the routes and the server, ``query.py`` the sample list's filters, sorting
and aggregate, ``render.py`` what a sample page shows (highlighted files, Markdown, rounds as
diffs, located diagnostics), ``lexers.py`` the TLA+ and JML highlighters, ``templating.py`` the
Jinja2 environment, ``toolchain.py`` the browser the viewer's tests drive.
"""
