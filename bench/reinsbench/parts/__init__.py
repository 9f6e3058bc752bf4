"""The parts of the bench, one module each, every one a ``run(ctx)`` that prints its tables and
files its figures under its own key of ``ctx.data``. ``--only`` names them (reinsbench.launcher)."""
