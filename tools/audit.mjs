// Runs the GraphQL-over-HTTP audit suite of graphql-http against a running supportdesk.
// Usage: node audit.mjs URL  (the API key comes from SUPPORTDESK_AUDIT_KEY)
// Exit status: 0 when no MUST audit fails and at most MAX_WARNINGS SHOULD audits warn.
import { auditServer } from 'graphql-http';

const MAX_WARNINGS = Number(process.env.SUPPORTDESK_AUDIT_MAX_WARNINGS ?? 3);
const url = process.argv[2];
const key = process.env.SUPPORTDESK_AUDIT_KEY;
if (!url || !key) {
  console.error('usage: SUPPORTDESK_AUDIT_KEY=svc_mk_... node audit.mjs http://127.0.0.1:8000/graphql');
  process.exit(2);
}

// Every audit request carries the key, as an integrator's would.
const fetchWithKey = (input, init = {}) => {
  const headers = new Headers(init.headers ?? {});
  headers.set('authorization', `Bearer ${key}`);
  return fetch(input, { ...init, headers });
};

const results = await auditServer({ url, fetchFn: fetchWithKey });
const counts = { ok: 0, notice: 0, warn: 0, error: 0 };
for (const result of results) {
  counts[result.status] += 1;
  if (result.status === 'ok') continue;
  let body = '';
  try {
    body = (await result.response.text()).slice(0, 300);
  } catch {
    body = '(body unavailable)';
  }
  console.log(`${result.status.toUpperCase().padEnd(6)} ${result.id} ${result.name}`);
  console.log(`       ${result.reason}`);
  console.log(`       status ${result.response.status}: ${body}`);
}
console.log(
  `graphql-http audit: ${counts.ok} ok, ${counts.error} MUST failures, ` +
    `${counts.warn} SHOULD warnings, ${counts.notice} MAY notices`,
);
const passed = counts.error === 0 && counts.warn <= MAX_WARNINGS;
console.log(passed ? 'audit passed' : `audit FAILED (allowed: 0 MUST failures, <= ${MAX_WARNINGS} warnings)`);
process.exit(passed ? 0 : 1);
