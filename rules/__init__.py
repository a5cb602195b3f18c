"""lion-lint's shipped rules: the ADR-0119 D8 gates, one module each.

Installed as ``lion_lint.rules``. Nothing here registers itself: the composition root
(``lintkit.cli.compose``) lists the rule classes it runs.
"""
