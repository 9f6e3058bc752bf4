"""The HTML report's look: one style sheet, inline in the page (its Content-Security-Policy allows
inline style and nothing else)."""

__all__ = ["CSS"]

CSS = """
:root { --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --line: #d0d7de; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328;
       margin: 0 auto; padding: 24px; max-width: 1180px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px;
     border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 0; }
code, pre, .cli { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: var(--soft); padding: 8px; overflow-x: auto; white-space: pre-wrap;
      word-break: break-word; margin: 6px 0; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top;
         overflow-wrap: break-word; }
td code { overflow-wrap: anywhere; }
th { background: var(--soft); font-weight: 600; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff;
         font-weight: 700; font-size: 13px; margin-right: 6px; }
.pass { background: var(--ok); } .fail { background: var(--bad); }
.incomplete { background: var(--warn); }
.missing { border-left: 4px solid var(--bad); background: #ffebe9; padding: 8px 12px;
           margin: 8px 0; }
.missing ul { margin: 4px 0; padding-left: 22px; }
.facts { color: #57606a; margin: 6px 0 0; }
.facts span { margin-right: 18px; }
.notice { border-left: 4px solid var(--warn); background: #fff8c5; padding: 8px 12px;
          margin: 8px 0; }
.failure, .step { border: 1px solid var(--line); border-radius: 6px; padding: 12px;
                  margin: 12px 0; }
.failure { border-left: 5px solid var(--bad); }
.step.failed { border-left: 5px solid var(--bad); }
.step.passed { border-left: 5px solid var(--ok); }
.head { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
.num { font-weight: 700; color: #57606a; min-width: 3em; }
.muted { color: #57606a; } .err { color: var(--bad); font-weight: 600; }
.okmark { color: var(--ok); font-weight: 700; } .badmark { color: var(--bad); font-weight: 700; }
ol.sequence { margin: 6px 0; padding-left: 22px; } ol.sequence li.failed { color: var(--bad); }
.pictures { display: flex; gap: 12px; flex-wrap: wrap; margin-top: 8px; }
figure { margin: 0; flex: 1 1 440px; max-width: 560px; }
img.film { max-width: 100%; border: 1px solid var(--line); border-radius: 4px; }
figure img { width: 100%; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: #57606a; font-size: 12px; }
tr.bad td { background: #ffebe9; }
details summary { cursor: pointer; color: #57606a; }
"""
