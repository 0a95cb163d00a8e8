// The HTML report's look: its stylesheet and its palettes, apart from the page and the charts that use
// them, so a change of colour or spacing is one file and never touches what the report says.
import type { Phase } from '../transport/phases.js';

// Tableau 10: distinct on screen and in print; a strategy keeps its colour in every chart.
export const STRATEGY_COLOURS = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];
// Retries in red, connection set-up in purples, the request itself in blues, waiting for the server in amber.
export const PHASE_COLOURS: Record<Phase, string> = {
  retry: '#d64541',
  wait: '#b5bcc6',
  dns: '#c5b3e6',
  tcp: '#9a86d6',
  tls: '#7258b8',
  send: '#9fcbe8',
  firstByte: '#f0a742',
  download: '#2f7f93',
};

export const CSS = `
:root{--ink:#1f2328;--muted:#59636e;--line:#d8dee4;--bg:#f6f8fa;--card:#fff}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,\
"Helvetica Neue",Arial,sans-serif}
main{max-width:1040px;margin:0 auto;padding:28px 24px 40px}
header{margin-bottom:20px}
.eyebrow{margin:0;color:var(--muted);font-size:12px;letter-spacing:.06em;text-transform:uppercase}
h1{margin:4px 0 14px;font-size:22px;line-height:1.3;font-weight:650}
h2{margin:0 0 4px;font-size:17px;font-weight:650}
h3{margin:14px 0 6px;font-size:13px;color:var(--muted)}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 20px;\
margin:16px 0;box-shadow:0 1px 2px rgba(31,35,40,.04)}
.lede{margin:0 0 12px;color:var(--muted);font-size:13px}
dl{margin:0}
dl.env{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:8px 18px}
dl.env div,dl.config div{min-width:0}
dl.env div.wide{grid-column:span 2}
dt{color:var(--muted);font-size:11px;text-transform:uppercase;letter-spacing:.05em}
dd{margin:0;overflow-wrap:anywhere}
details{margin-top:12px}
summary{cursor:pointer;color:var(--muted);font-size:13px}
dl.config{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:6px 16px;\
margin-top:8px;font-size:13px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:13px}
th{text-align:left;font-weight:600;color:var(--muted);font-size:12px;border-bottom:1px solid var(--line);\
padding:6px 8px;vertical-align:bottom}
td{border-bottom:1px solid #eef1f4;padding:7px 8px;vertical-align:top}
tbody tr:last-child td{border-bottom:0}
th.num{text-align:right}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.desc{color:var(--muted);font-size:12px}
.pm{color:var(--muted);font-size:12px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:7px}
.ok{color:#1a7f37;font-weight:600;white-space:nowrap}
.bad{color:#cf222e;font-weight:600}
.warn{background:#fff8c5;border:1px solid #eed888;border-radius:6px;padding:8px 10px}
.notes{margin:12px 0 0;padding-left:18px;font-size:13px}
svg{display:block;width:100%;height:auto;font-family:inherit}
svg text{fill:var(--ink);font-size:12px}
svg .tick{fill:var(--muted);font-size:11px;font-variant-numeric:tabular-nums}
svg .axis{fill:var(--muted);font-size:12px}
svg .label{font-size:13px}
svg .value{font-size:12px;font-weight:600;font-variant-numeric:tabular-nums}
svg .seg{font-size:11px;fill:#1f2328}
svg .seg.light,svg .cellv.light{fill:#fff}
svg .cellv{font-size:13px;font-variant-numeric:tabular-nums}
svg .grid{stroke:#e6eaef;stroke-width:1}
svg .grid.faint{stroke:#f0f2f5}
svg .axisline{stroke:#8c959f;stroke-width:1}
svg .whisker line{stroke:#24292f;stroke-width:1.5}
svg .ci{fill:#24292f;fill-opacity:.35}
svg .nodata{fill:#f3f4f6}
svg .muted{fill:var(--muted);font-size:12px;font-style:italic}
svg .point{stroke:#fff;stroke-width:1.5}
svg .cell.empty{fill:#f3f4f6}
svg .active{fill:#4e79a7;fill-opacity:.07}
svg .autoterm{stroke:#24292f;stroke-width:1.5;stroke-dasharray:5 4}
svg .cell.best{stroke:#1f2328;stroke-width:3}
svg .cell.tied{stroke:#1f2328;stroke-width:1.5;stroke-dasharray:4 3}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;margin:10px 0 0;padding:0;list-style:none;font-size:12px;\
color:var(--muted)}
.legend li{display:flex;align-items:center;gap:6px}
.legend .swatch{margin:0}
.legend .line{display:inline-block;width:18px;height:3px;border-radius:2px}
.legend strong{color:var(--ink);font-weight:600}
.recommendation{margin:0 0 10px;font-size:17px;font-weight:650;line-height:1.4}
.verdicts,.warnings,.time-went{margin:8px 0 0;padding-left:18px;font-size:13px}
.warnings li{margin-top:6px}
tr.recommended td{background:#eef6ee}
footer{color:var(--muted);font-size:12px;text-align:center;margin-top:20px}
`;
