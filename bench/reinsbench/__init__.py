"""The bench: reins side by side with agent-browser and Playwright (`scripts/bench`), and tokens
per step through `reins mcp` (`scripts/bench-mcp`).

It lives in bench/, beside the npm folder that pins agent-browser (bench/agent-browser), and is no
part of the reins wheel: the launchers put bench/ on the path. From the top down (pyproject's
import contracts keep it so):

- launcher, mcp_tokens: the two command lines (options, set-up, clean-up, the order of the parts);
- parts: one module per part `--only` names, each a ``run(ctx)``;
- context: what every part is handed (settings, tools, the printed lines, the raw figures);
- peers: reins, agent-browser and Playwright as the bench drives them, and their refs;
- harness: a timed run, a cell of runs, medians and tables, the fixture server, the versions.
"""
