/** The admin page's style sheet (inline, allowed by its hash in the page's CSP). */
export const ADMIN_PAGE_STYLE = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5b6475; --line: #dde2ea; --bg: #f5f7fa; --card: #fff; --accent: #2457c5; --bad: #b3261e; --good: #1b7f3b; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 12px 20px; background: #1d2330; color: #fff; }
header h1 { font-size: 17px; margin: 0 12px 0 0; }
header label { color: #cfd6e4; }
header input { width: 260px; }
#status { margin-left: auto; color: #cfd6e4; }
#status.bad { color: #ffb4ab; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 16px; padding: 16px 20px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; min-width: 0; }
section.wide { grid-column: 1 / -1; }
h2 { font-size: 15px; margin: 0 0 8px; }
h3 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); }
table { width: 100%; border-collapse: collapse; font-size: 13px; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.error { color: var(--bad); max-width: 360px; overflow-wrap: anywhere; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.state-running, .state-sent, .state-processed { color: var(--good); font-weight: 600; }
.state-dead, .state-stopped { color: var(--bad); font-weight: 600; }
.state-pending, .state-processing, .state-idle, .state-retrying { color: var(--warn); font-weight: 600; }
.empty { color: var(--muted); font-style: italic; }
form.filter { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin: 6px 0 10px; }
form.filter label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
input, select, button { font: inherit; padding: 4px 8px; border: 1px solid #b9c1cf; border-radius: 5px; }
button { background: #fff; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
button:disabled { opacity: .5; cursor: default; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 10px; }
.tabs button[aria-pressed="true"] { background: var(--fg); color: #fff; border-color: var(--fg); }
pre { background: var(--bg); border: 1px solid var(--line); padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 260px; overflow: auto; }
#confirm { position: fixed; inset: 0; background: rgba(20, 24, 33, .45); display: flex; align-items: center; justify-content: center; }
#confirm[hidden] { display: none; }
#confirm div { background: #fff; border-radius: 8px; padding: 18px 20px; max-width: 460px; box-shadow: 0 10px 30px rgba(0, 0, 0, .25); }
#message { min-height: 1.4em; }
#message.bad { color: var(--bad); }
`;
