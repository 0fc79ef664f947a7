"""Each page loads every script once.

sphinx-thebe 0.3.1 under Sphinx 7.4 registers its inline configuration script twice
(once with filename None, once with ''), so every page declared ``const THEBE_JS_URL``
twice and the browser reported a SyntaxError. This keeps the first of identical scripts.
"""


def _unique_scripts(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for js in context.get("script_files", []):
        body = getattr(js, "attributes", {}).get("body")
        key = ("body", body) if body else ("file", getattr(js, "filename", str(js)))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", _unique_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
