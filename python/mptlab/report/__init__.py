"""`mptlab report`: one self-contained HTML file about a sweep.

    from mptlab.report import build_report
    build_report("sweeps/b")            # -> sweeps/b/report.html

Everything is inside the file (figures as SVG data URIs, CSS inline, no script, no fonts or
styles fetched), so it opens offline and can be mailed or archived as is. `tables` computes
the summary tables, `render` fills the Jinja2 template `template.html.j2`.
"""

from mptlab.report.render import build_report

__all__ = ["build_report"]
