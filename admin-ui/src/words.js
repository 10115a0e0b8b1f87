/** "1 action", "3 actions"; `many` for irregular plurals. */
export const count = (n, one, many = `${one}s`) => `${n} ${Number(n) === 1 ? one : many}`;

/** Milliseconds as an operator reads them: "0.4 ms", "12 ms", "1.25 s". */
export const ms = (n) => (n === null || n === undefined ? '—' : n < 10 ? `${Number(n).toFixed(1)} ms` : n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(2)} s`);

/** A date-time as the browser's locale shows it. */
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

/** The admin UI's path of an agent's page, or of one of its sub-pages. */
export const agentPath = (agentId, ...rest) => ['/admin/agents', encodeURIComponent(agentId), ...rest.map(encodeURIComponent)].join('/');

/** A share from 0 to 1 as a percentage: "0 %", "12.5 %", "100 %". */
export const percent = (share) => `${Math.round(share * 1000) / 10} %`;
